import { describe, expect, it } from 'vitest';
import { TraceFlag, tracePrintLatFmt } from './lat-fmt.js';

const F = TraceFlag;

describe(tracePrintLatFmt, () => {
  it.each<[number, number, string]>([
    [0, 0, '.....'],
    [F.IRQS_OFF, 1, 'd..1.'],
    [F.IRQS_OFF | F.BH_OFF, 0, 'D....'],
    [F.BH_OFF, 0, 'b....'],
    [F.IRQS_NOSUPPORT, 0, 'X....'],
    [F.NEED_RESCHED | F.PREEMPT_RESCHED, 0, '.N...'],
    [F.NEED_RESCHED, 0, '.n...'],
    [F.PREEMPT_RESCHED, 0, '.p...'],
    [F.NMI | F.HARDIRQ, 0, '..Z..'],
    [F.NMI, 0, '..z..'],
    [F.HARDIRQ | F.SOFTIRQ, 0, '..H..'],
    [F.HARDIRQ, 0, '..h..'],
    [F.SOFTIRQ, 0, '..s..'],
    [0, 0x2f, '...f2'],
    [F.IRQS_OFF | F.NEED_RESCHED | F.PREEMPT_RESCHED | F.HARDIRQ, 0x12, 'dNh21'],
  ])('should print flags %i, preempt count %i as %j', (flags, pc, expected) => {
    expect(tracePrintLatFmt(flags, pc)).toBe(expected);
  });
});
