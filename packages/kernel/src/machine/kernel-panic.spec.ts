import { describe, expect, it } from 'vitest';
import type { MachineEvent } from '../events/kernel-event.js';
import { KernelPanic } from './kernel-panic.js';

function setup() {
  const logged: string[] = [];
  const events: MachineEvent[] = [];
  const panic = new KernelPanic(
    { log: (cpu, level, text) => logged.push(`${cpu}:${level}:${text}`), emitMachine: (e) => events.push(e) },
    { clock: (cpu) => 1000 + cpu },
    false,
  );
  return { panic, logged, events };
}

describe('KernelPanic.panic', () => {
  it('should log the panic line at KERN_EMERG and publish machine:panicked once', () => {
    const { panic, logged, events } = setup();
    panic.panic(1, 'Fatal exception');
    panic.panic(0, 'a second panic');
    expect(panic.message).toBe('Fatal exception');
    expect(logged).toEqual(['1:0:Kernel panic - not syncing: Fatal exception']);
    expect(events).toEqual([{ type: 'machine:panicked', at: 1001, cpu: 1, reason: 'Fatal exception' }]);
  });
});
