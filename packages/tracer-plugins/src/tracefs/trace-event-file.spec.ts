import { describe, expect, it } from 'vitest';
import { EventFileFlag, TraceEventFile } from './trace-event-file.js';

function make() {
  const calls: boolean[] = [];
  return { file: new TraceEventFile((on) => calls.push(on)), calls };
}

describe(TraceEventFile.name, () => {
  it('should arm a soft-enabled event SOFT_DISABLED and read 0*', () => {
    const { file, calls } = make();
    file.enableDisable(true, true);
    expect(calls).toEqual([true]);
    expect(file.enableText()).toBe('0*\n');
    expect(file.softDisabled).toBe(true);
  });

  it('should keep a soft-mode event armed when enable is written 0, and disarm at the last soft reference', () => {
    const { file, calls } = make();
    file.enableDisable(true, true);
    file.enableDisable(true, true);
    file.enableDisable(true, false);
    expect(file.enableText()).toBe('1*\n');
    file.enableDisable(false, false);
    expect(file.enableText()).toBe('0*\n');
    file.enableDisable(false, true);
    expect(calls).toEqual([true]);
    file.enableDisable(false, true);
    expect(calls).toEqual([true, false]);
    expect(file.enableText()).toBe('0\n');
  });

  it('should leave a really enabled event on when its soft reference goes', () => {
    const { file, calls } = make();
    file.enableDisable(true, false);
    file.enableDisable(true, true);
    expect(file.enableText()).toBe('1*\n');
    file.enableDisable(false, true);
    expect(file.enableText()).toBe('1\n');
    expect(calls).toEqual([true]);
  });

  it('should restore its flags when arming throws', () => {
    const file = new TraceEventFile(() => {
      throw new Error('no');
    });
    expect(() => file.enableDisable(true, true)).toThrow('no');
    expect(file.flags).toBe(0);
    expect(() => file.triggerEnableDisable(true)).toThrow('no');
    expect(file.flags & EventFileFlag.TRIGGER_MODE).toBe(0);
  });
});
