import { describe, expect, it } from 'vitest';
import type { OptimizedDetour } from './arch.js';
import type { KprobeEvent } from './kprobe-event.js';
import { OptimizeRefusals } from './optimize-refusals.js';
import { ProbeSite } from './probe-site.js';

function setup(prepared: OptimizedDetour | string, inside?: string) {
  const events: KprobeEvent[] = [];
  const k = {
    observed: true,
    now: () => 0,
    emit: (e: KprobeEvent) => events.push(e),
    allArmed: true,
    trampolineSite: undefined,
  };
  const arch = { archPrepareOptimizedKprobe: () => prepared, archCheckOptimizedKprobe: () => inside };
  const site = new ProbeSite(0x1000n, 'f+0x0', undefined, { slot: 0n, opcode: 0x55, text: 'push %rbp' });
  return { refusals: new OptimizeRefusals(k, arch), site, events };
}

describe(OptimizeRefusals, () => {
  it("should give the region analysis's reason, then an armed probe inside the region, else none", () => {
    expect(setup('an indirect jump').refusals.analysis(setup('x').site)).toBe('an indirect jump');
    const inside = setup({ buf: 0n, copies: 1n, size: 6 }, 'probe inside the region at f+0x2');
    expect(inside.refusals.analysis(inside.site)).toBe('probe inside the region at f+0x2');
    const ok = setup({ buf: 0n, copies: 1n, size: 6 });
    expect(ok.refusals.analysis(ok.site)).toBeUndefined();
  });

  it('should report a reason once until it changes or is forgotten, and keep it across save and restore', () => {
    const { refusals, site, events } = setup('x');
    refusals.report(site, 'a');
    refusals.report(site, 'a');
    refusals.report(site, 'b');
    const saved = refusals.save();
    refusals.forget(site);
    refusals.report(site, 'b');
    refusals.restore(saved);
    refusals.report(site, 'b');
    expect(events.map((e) => e.type === 'kprobe:optimize-refused' && e.reason)).toEqual(['a', 'b', 'b']);
  });
});
