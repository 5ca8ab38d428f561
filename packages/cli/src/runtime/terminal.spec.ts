import { describe, expect, it } from 'vitest';
import { Style, Terminal, type TerminalOptions } from './terminal.js';

function terminal(options: Partial<TerminalOptions>, clock = { t: 0 }) {
  const err: string[] = [];
  const term = new Terminal({
    stdoutIsTty: true,
    stderrIsTty: true,
    color: true,
    quiet: false,
    writeErr: (s) => err.push(s),
    now: () => clock.t,
    ...options,
  });
  return { term, err };
}

describe(Terminal, () => {
  it('should paint only on a terminal, with NO_COLOR unset and without --no-color', () => {
    expect(terminal({}).term.paintOut(Style.bold, 'x')).toBe('\x1b[1mx\x1b[0m');
    expect(terminal({ stdoutIsTty: false }).term.paintOut(Style.bold, 'x')).toBe('x');
    expect(terminal({ env: { NO_COLOR: '1' } }).term.paintOut(Style.bold, 'x')).toBe('x');
    expect(terminal({ color: false }).term.paintErr(Style.red, 'x')).toBe('x');
    expect(terminal({ stderrIsTty: false }).term.colorErr).toBe(false);
    expect(terminal({ env: { NO_COLOR: '' } }).term.colorOut).toBe(true);
  });

  it('should decide each stream by --color=WHEN, FORCE_COLOR and TERM=dumb', () => {
    const piped = { stdoutIsTty: false, stderrIsTty: false };
    expect(terminal({ ...piped, color: 'always' }).term.paintErr(Style.red, 'x')).toBe('\x1b[31mx\x1b[0m');
    expect(terminal({ color: 'never' }).term.colorOut).toBe(false);
    expect(terminal({ ...piped, env: { FORCE_COLOR: '1' } }).term.colorOut).toBe(true);
    expect(terminal({ env: { TERM: 'dumb' } }).term.colorErr).toBe(false);
    const mixed = terminal({ stdoutIsTty: false, color: 'auto' }).term;
    expect([mixed.colorOut, mixed.colorErr]).toEqual([false, true]);
  });

  it('should draw progress on a terminal only, throttled, and erase it', () => {
    const clock = { t: 0 };
    const { term, err } = terminal({}, clock);
    term.progress('a');
    clock.t = 50;
    term.progress('b');
    clock.t = 150;
    term.progress('c');
    term.endProgress();
    term.endProgress();
    expect(err).toEqual(['\r\x1b[Ka', '\r\x1b[Kc', '\r\x1b[K']);
    const piped = terminal({ stderrIsTty: false });
    piped.term.progress('a');
    expect(piped.err).toEqual([]);
  });

  it('should drop progress and notes with --quiet', () => {
    const { term, err } = terminal({ quiet: true });
    term.progress('a');
    term.note('hello');
    expect(err).toEqual([]);
    const plain = terminal({ stderrIsTty: false });
    plain.term.note('hello');
    expect(plain.err).toEqual(['int3: hello\n']);
  });
});
