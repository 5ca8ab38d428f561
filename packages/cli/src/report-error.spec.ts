import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { CliError } from './cli-error.js';
import { commanderErrorLine, reportError } from './report-error.js';

function report(error: unknown): [number, string] {
  let out = '';
  const code = reportError(error, (line) => (out += line));
  return [code, out];
}

describe(commanderErrorLine, () => {
  it("should replace commander's error: with int3's prefix", () => {
    expect(commanderErrorLine("error: unknown option '--bogus'\n")).toBe("int3: unknown option '--bogus'\n");
    expect(commanderErrorLine('(add --help for usage)\n')).toBe('(add --help for usage)\n');
  });
});

describe(reportError, () => {
  it('should print a usage error as one line with a help hint and exit 2', () => {
    expect(report(new CliError('usage', "bad argument 'zz'", 'call'))).toEqual([
      2,
      "int3: bad argument 'zz' (see 'int3 call --help')\n",
    ]);
  });

  it('should print a run failure as one line and exit 1', () => {
    expect(report(new CliError('failure', 'guest fault: #UD at rip=0x0'))).toEqual([
      1,
      'int3: guest fault: #UD at rip=0x0\n',
    ]);
  });

  it('should paint the prefix bold red on a terminal that takes colours, and keep it on one that does not', () => {
    let out = '';
    reportError(new CliError('failure', 'x'), (line) => (out += line), true);
    expect(out).toBe('\x1b[1;31mint3:\x1b[0m x\n');
    expect(report(new CliError('interrupted', 'interrupted (Ctrl-C)'))).toEqual([130, 'int3: interrupted (Ctrl-C)\n']);
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
