import { describe, expect, it } from 'vitest';
import { Interrupt } from './interrupt.js';

describe(Interrupt, () => {
  it('should be requested by SIGINT while listening, and stop listening when told', () => {
    const before = process.listenerCount('SIGINT');
    const interrupt = new Interrupt();
    const off = interrupt.listen();
    expect(process.listenerCount('SIGINT')).toBe(before + 1);
    expect(interrupt.requested).toBe(false);
    process.emit('SIGINT', 'SIGINT');
    expect(interrupt.requested).toBe(true);
    off();
    expect(process.listenerCount('SIGINT')).toBe(before);
  });
});
