import { describe, expect, it } from 'vitest';
import { colorEnabled, colorWhenOfArgv, parseColorWhen } from './color-when.js';

describe(colorEnabled, () => {
  it('should follow --color=always and --color=never whatever the stream and environment', () => {
    expect(colorEnabled('always', false, { NO_COLOR: '1', TERM: 'dumb' })).toBe(true);
    expect(colorEnabled('never', true, { FORCE_COLOR: '1' })).toBe(false);
  });

  it('should colour a terminal and not a pipe under auto', () => {
    expect(colorEnabled('auto', true, {})).toBe(true);
    expect(colorEnabled('auto', false, {})).toBe(false);
  });

  it('should turn colours off for a non-empty NO_COLOR and for TERM=dumb', () => {
    expect(colorEnabled('auto', true, { NO_COLOR: '1' })).toBe(false);
    expect(colorEnabled('auto', true, { NO_COLOR: '' })).toBe(true);
    expect(colorEnabled('auto', true, { TERM: 'dumb' })).toBe(false);
    expect(colorEnabled('auto', true, { TERM: 'xterm-256color' })).toBe(true);
  });

  it('should let a non-empty FORCE_COLOR force colours on a pipe, over NO_COLOR, and 0 or false turn them off', () => {
    expect(colorEnabled('auto', false, { FORCE_COLOR: '1' })).toBe(true);
    expect(colorEnabled('auto', false, { FORCE_COLOR: '1', NO_COLOR: '1', TERM: 'dumb' })).toBe(true);
    expect(colorEnabled('auto', true, { FORCE_COLOR: '0' })).toBe(false);
    expect(colorEnabled('auto', true, { FORCE_COLOR: 'false' })).toBe(false);
    expect(colorEnabled('auto', false, { FORCE_COLOR: '' })).toBe(false);
  });
});

describe(parseColorWhen, () => {
  it('should take auto, always and never only', () => {
    expect(['auto', 'always', 'never', 'yes', ''].map(parseColorWhen)).toEqual([
      'auto',
      'always',
      'never',
      undefined,
      undefined,
    ]);
  });
});

describe(colorWhenOfArgv, () => {
  it('should read the last --color or --no-color of an argv, before --', () => {
    expect(colorWhenOfArgv(['trace', '-e', 'x'])).toBe('auto');
    expect(colorWhenOfArgv(['--no-color', 'trace', '--color=always'])).toBe('always');
    expect(colorWhenOfArgv(['--color', 'never', 'trace'])).toBe('never');
    expect(colorWhenOfArgv(['--color=bogus'])).toBe('auto');
    expect(colorWhenOfArgv(['trace', '--', '--no-color'])).toBe('auto');
  });
});
