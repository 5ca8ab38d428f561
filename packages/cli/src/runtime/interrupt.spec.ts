import { describe, expect, it } from 'vitest';
import { Interrupt } from './interrupt.js';

describe(Interrupt, () => {
  it('should be requested by SIGINT during a run while listening, and stop listening when told', async () => {
    const before = process.listenerCount('SIGINT');
    const interrupt = new Interrupt();
    const off = interrupt.listen();
    expect(process.listenerCount('SIGINT')).toBe(before + 1);
    expect(interrupt.requested).toBe(false);
    await interrupt.during(async () => {
      process.emit('SIGINT', 'SIGINT');
    });
    expect(interrupt.requested).toBe(true);
    interrupt.clear();
    expect(interrupt.requested).toBe(false);
    off();
    expect(process.listenerCount('SIGINT')).toBe(before);
  });

  it('should be honoured only during a run that checks it', async () => {
    const interrupt = new Interrupt();
    expect(interrupt.honoured).toBe(false);
    const seen = await interrupt.during(async () => interrupt.honoured);
    expect(seen).toBe(true);
    expect(interrupt.honoured).toBe(false);
    await expect(interrupt.during(async () => Promise.reject(new Error('x')))).rejects.toThrow('x');
    expect(interrupt.honoured).toBe(false);
  });
});
