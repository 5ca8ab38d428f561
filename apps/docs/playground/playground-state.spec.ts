import { describe, expect, it } from 'vitest';
import { DEFAULT_STATE, decodeState, encodeState, filterWrite, shellQuote } from './playground-state.js';

describe(encodeState, () => {
  it('should give a fragment that decodes to the same state, quotes and non-ASCII included', () => {
    const state = {
      ...DEFAULT_STATE,
      definitions: ['p:x do_sys_open s=\\"it\'s\\"', 'r:y sys_mkdir $retval'],
      filters: ['x=dfd == 3'],
      workloads: ['mkdir /tmp/é'],
      cpus: 4,
      optimize: false,
      shell: ['cat trace'],
    };
    const hash = encodeState(state);
    expect(hash).toMatch(/^#run=[A-Za-z0-9_-]+$/);
    expect(decodeState(hash)).toEqual(state);
  });
});

describe(decodeState, () => {
  it('should refuse a fragment that is not a run, or is damaged', () => {
    expect(decodeState('')).toBeUndefined();
    expect(decodeState('#intro')).toBeUndefined();
    expect(decodeState('#run=!!!')).toBeUndefined();
    expect(decodeState(`#run=${btoa('{not json')}`)).toBeUndefined();
  });

  it('should fall back to the defaults for out-of-range CPUs and budgets', () => {
    const s = decodeState(encodeState({ ...DEFAULT_STATE, cpus: 99, budget: -1 }));
    expect(s?.cpus).toBe(DEFAULT_STATE.cpus);
    expect(s?.budget).toBe(DEFAULT_STATE.budget);
  });
});

describe(shellQuote, () => {
  it("should quote a word as sh does, a quote inside as '\\''", () => {
    expect(shellQuote('p:a b')).toBe("'p:a b'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
  });
});

describe(filterWrite, () => {
  it('should write EVENT=EXPR to the kprobes group, GROUP/EVENT=EXPR to its own', () => {
    expect(filterWrite('open=dfd == 3')).toEqual({ path: 'events/kprobes/open/filter', expr: 'dfd == 3' });
    expect(filterWrite('mine/open = x > 1')).toEqual({ path: 'events/mine/open/filter', expr: 'x > 1' });
    expect(filterWrite('no equals sign')).toBeUndefined();
  });
});
