import { describe, expect, it } from 'vitest';
import { INTERRUPTIBLE_COMMANDS, Interrupt } from './interrupt.js';

describe(Interrupt, () => {
  it('should be requested by SIGINT while listening for a command that honours it, and stop listening', () => {
    const before = process.listenerCount('SIGINT');
    const interrupt = new Interrupt();
    const off = interrupt.listen();
    expect(process.listenerCount('SIGINT')).toBe(before + 1);
    expect(interrupt.requested).toBe(false);
    process.emit('SIGINT', 'SIGINT'); // before the command is known: kept as a request
    expect(interrupt.requested).toBe(true);
    interrupt.declare(true);
    expect(interrupt.requested).toBe(true);
    interrupt.clear();
    expect(interrupt.requested).toBe(false);
    off();
    expect(process.listenerCount('SIGINT')).toBe(before);
  });

  it('should list the commands whose runs Ctrl-C stops', () => {
    expect([...INTERRUPTIBLE_COMMANDS].sort()).toEqual(['record', 'replay', 'trace', 'tracefs']);
  });
});
