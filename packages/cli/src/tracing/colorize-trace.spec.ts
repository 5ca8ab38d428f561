import { describe, expect, it } from 'vitest';
import { Terminal } from '../runtime/terminal.js';
import { colorizeTrace } from './colorize-trace.js';

const LINE = '             cat-1       [000] d....     0.000010: open: (do_sys_open+0x0/0x40) dfd=0x3\n';

const term = (tty: boolean) =>
  new Terminal({ stdoutIsTty: tty, stderrIsTty: tty, color: true, quiet: false, writeErr: () => {} });

describe(colorizeTrace, () => {
  it('should paint the task, CPU, timestamp and event of an ftrace line on a terminal', () => {
    expect(colorizeTrace(LINE, term(true))).toBe(
      '             \x1b[36mcat-1\x1b[0m       \x1b[2m[000]\x1b[0m d....     \x1b[33m0.000010\x1b[0m: \x1b[1;32mopen\x1b[0m: (do_sys_open+0x0/0x40) dfd=0x3\n',
    );
  });

  it('should leave the text alone when stdout is not a terminal', () => {
    expect(colorizeTrace(LINE, term(false))).toBe(LINE);
  });
});
