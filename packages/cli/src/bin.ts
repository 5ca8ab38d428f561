#!/usr/bin/env node
import { createProgram } from './program.js';
import { reportError } from './report-error.js';
import { processEnvironment } from './runtime/cli-environment.js';
import { Interrupt } from './runtime/interrupt.js';

// A reader that went away (`int3 ... | head`) ends the output, not the process with a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
  });
}
// Ctrl-C is a request to stop at the next slice of a run, handled from the first line on.
const interrupt = new Interrupt();
interrupt.listen();
const environment = processEnvironment(interrupt);
try {
  await createProgram(environment).parseAsync(process.argv);
} catch (error) {
  const argv = process.argv.slice(2);
  const color = environment.stderrIsTty && (environment.env.NO_COLOR ?? '') === '' && !argv.includes('--no-color');
  process.exitCode = reportError(error, (line) => process.stderr.write(line), color);
}
