import { describe, expect, it } from 'vitest';
import { CallTimeout, callWithTimeout } from './call-with-timeout.js';

describe(callWithTimeout, () => {
  it('should return what the call returns and let its exceptions through unchanged', () => {
    expect(callWithTimeout(() => 42, 1000)).toBe(42);
    const thrown = new RangeError('mine');
    expect(() =>
      callWithTimeout(() => {
        throw thrown;
      }, 1000),
    ).toThrow(thrown);
  });

  it('should terminate an endless loop after the limit and throw CallTimeout', () => {
    let entered = false;
    expect(() =>
      callWithTimeout(() => {
        entered = true;
        for (;;) {
          // spin
        }
      }, 200),
    ).toThrow(CallTimeout);
    expect(entered).toBe(true);
    // The thread runs on afterwards.
    expect(callWithTimeout(() => 'alive', 1000)).toBe('alive');
  });
});
