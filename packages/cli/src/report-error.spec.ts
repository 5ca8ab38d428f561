import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { CliError } from './cli-error.js';
import { reportError } from './report-error.js';

function report(error: unknown): [number, string] {
  let out = '';
  const code = reportError(error, (line) => (out += line));
  return [code, out];
}

describe(reportError, () => {
  it('should print a usage error as one line with a help hint and exit 2', () => {
    expect(report(new CliError('usage', "bad argument 'zz'", 'call'))).toEqual([
      2,
      "bad argument 'zz' (see 'int3 call --help')\n",
    ]);
  });

  it('should print a run failure as one line and exit 1', () => {
    expect(report(new CliError('failure', 'guest fault: #UD at rip=0x0'))).toEqual([
      1,
      'guest fault: #UD at rip=0x0\n',
    ]);
  });

  it("should exit 2 for commander's parse errors and 0 for --help, printing nothing more", () => {
    expect(report(new CommanderError(1, 'commander.unknownOption', 'x'))).toEqual([2, '']);
    expect(report(new CommanderError(0, 'commander.helpDisplayed', '(outputHelp)'))).toEqual([0, '']);
  });

  it('should report anything else as a one-line internal error, without a stack', () => {
    const [code, out] = report(new TypeError('boom'));
    expect(code).toBe(1);
    expect(out).toBe('int3: internal error: boom\n');
  });
});
