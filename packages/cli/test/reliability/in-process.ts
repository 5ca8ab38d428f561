import { createProgram } from '../../src/program.js';
import { reportError } from '../../src/report-error.js';
import { Interrupt } from '../../src/runtime/interrupt.js';
import type { Int3Result } from '../int3.js';

/**
 * Runs `int3 ...args` in this process, as `bin.ts` does (the same program, the same error report and
 * exit status), for the many cases that are refused before a machine boots: no process per case.
 */
export async function int3InProcess(args: readonly string[]): Promise<Int3Result> {
  let stdout = '';
  let stderr = '';
  const environment = {
    interrupt: new Interrupt(),
    stdinIsTty: false,
    stdoutIsTty: false,
    stderrIsTty: false,
    env: {},
    cwd: process.cwd(),
    writeErr: (s: string) => {
      stderr += s;
    },
  };
  const program = createProgram(environment).configureOutput({
    writeOut: (s) => {
      stdout += s;
    },
    writeErr: (s) => {
      stderr += s;
    },
  });
  let status = 0;
  try {
    await program.parseAsync(['node', 'int3', ...args]);
  } catch (error) {
    status = reportError(error, (line) => {
      stderr += line;
    });
  }
  return { status, stdout, stderr };
}
