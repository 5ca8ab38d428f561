import { describe, expect, it } from 'vitest';
import { Machine } from '../src/machine/machine.js';
import { readSampleImage, sampleProgram } from '../src/sample-image.js';

function boot(cpus = 1): Machine {
  return Machine.boot({ image: readSampleImage(), imageName: 'vmlinux', cpus, programs: sampleProgram });
}

describe('Machine.boot', () => {
  it('should boot the sample kernel and run hello', () => {
    const m = boot();
    const t = m.spawn(['hello']);
    const out = m.run({ until: () => t.exited });
    const dmesg = m.printk.dmesg();
    expect(out, dmesg).toEqual({ reason: 'done' });
    expect(m.console.map((c) => c.text).join('')).toMatch(/Hello from int3, pid \d+!/);
    expect(t.exitCode).toBe(0);
  });
});
