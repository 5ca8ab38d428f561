#!/usr/bin/env node
import { createProgram } from './program.js';
import { reportError } from './report-error.js';

try {
  await createProgram().parseAsync(process.argv);
} catch (error) {
  process.exitCode = reportError(error, (line) => process.stderr.write(line));
}
