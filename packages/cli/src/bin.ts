#!/usr/bin/env node
// Ctrl-C is handled from the first moment, before the program and the emulator load (which can take
// seconds on a busy machine): a Ctrl-C meanwhile is kept as a request the command then honours.
import { Interrupt } from './runtime/interrupt.js';

const interrupt = new Interrupt();
interrupt.listen();

// A reader that went away (`int3 ... | head`) ends the output, not the process with a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
  });
}

// `--help` and `--version` alone are answered by the program's outline, without loading the emulator.
const argv = process.argv.slice(2);
const { outlineSuffices, createOutlineProgram } = await import('./program-outline.js');
const { reportError } = await import('./report-error.js');
const { processEnvironment } = await import('./runtime/cli-environment.js');
const { colorEnabled, colorWhenOfArgv } = await import('./runtime/color-when.js');
const environment = processEnvironment(interrupt);
try {
  const program = outlineSuffices(argv)
    ? createOutlineProgram()
    : (await import('./program.js')).createProgram(environment);
  await program.parseAsync(process.argv);
} catch (error) {
  const color = colorEnabled(colorWhenOfArgv(argv), environment.stderrIsTty, environment.env);
  process.exitCode = reportError(error, (line) => process.stderr.write(line), color);
}
// The command is done: nothing a plugin left behind (a timer, an open handle) keeps int3 running.
await Promise.all([process.stdout, process.stderr].map((s) => new Promise((resolve) => s.write('', resolve))));
process.exit();
