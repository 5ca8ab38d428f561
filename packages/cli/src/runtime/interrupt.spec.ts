import { describe, expect, it } from 'vitest';
import { exitStatusOf, INTERRUPTIBLE_COMMANDS, Interrupt } from './interrupt.js';

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

  it('should take SIGTERM and SIGHUP as requests too, remembering the first signal', () => {
    const interrupt = new Interrupt();
    const off = interrupt.listen();
    interrupt.declare(true);
    process.emit('SIGTERM', 'SIGTERM');
    expect(interrupt.requested).toBe(true);
    expect(interrupt.signal).toBe('SIGTERM');
    interrupt.clear();
    process.emit('SIGHUP', 'SIGHUP');
    expect(interrupt.signal).toBe('SIGHUP');
    off();
  });

  it('should leave signals their default action for a command that does not honour them', () => {
    const before = process.listenerCount('SIGTERM');
    const interrupt = new Interrupt();
    interrupt.listen();
    expect(process.listenerCount('SIGTERM')).toBe(before + 1);
    interrupt.declare(false);
    expect(process.listenerCount('SIGTERM')).toBe(before);
  });

  it('should list the commands that honour Ctrl-C', () => {
    expect([...INTERRUPTIBLE_COMMANDS].sort()).toEqual([
      'bpftrace',
      'call',
      'demo',
      'disasm',
      'record',
      'replay',
      'syms',
      'trace',
      'tracefs',
    ]);
  });
});

describe(exitStatusOf, () => {
  it('should be 128 + the signal number, as shells report it', () => {
    expect([exitStatusOf('SIGINT'), exitStatusOf('SIGTERM'), exitStatusOf('SIGHUP')]).toEqual([130, 143, 129]);
  });
});
