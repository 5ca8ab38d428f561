import { describe, expect, it } from 'vitest';
import { KPROBES_OPTIMIZATION } from '../tracing/run-trace.js';
import { applyTracefsWrite, createTracedSession, readKernelImage } from '../tracing/traced-session.js';
import { countInterruptions, hitSteps, type MechanismEvent } from './hit-steps.js';

/** The mechanism's events of `cat /etc/motd` with `definition` (and jump optimization as `optimize`). */
function watched(definition: string, optimize: boolean) {
  const t = createTracedSession(readKernelImage(undefined, 'trace'), 2);
  const timeline: MechanismEvent[] = [];
  t.kprobes.events$.subscribe((e) => timeline.push(e));
  t.session.machine.streams.traps$.subscribe((e) => timeline.push(e));
  if (!optimize) applyTracefsWrite(t, KPROBES_OPTIMIZATION, '0\n', false);
  applyTracefsWrite(t, 'kprobe_events', `${definition}\n`, true);
  applyTracefsWrite(t, 'events/enable', '1\n', false);
  t.session.runWorkloads([['cat', '/etc/motd']]);
  const m = t.session.machine;
  return { timeline, sym: (a: bigint) => m.kallsyms.format(a) };
}

const isHit = (e: MechanismEvent) => e.type === 'kprobe:hit';

describe(hitSteps, () => {
  it('should tell an int3 hit from its #BP to its resumption after the single-step', () => {
    const { timeline, sym } = watched('p:open do_sys_open', false);
    const steps = hitSteps(timeline, 0, sym, isHit)!;
    expect(steps.map((s) => s.line.trim().replace(/0x[0-9a-f]{16}/, 'SLOT'))).toEqual([
      'interruption 1: #BP at do_sys_open+0x1/0x40',
      'kprobe:hit: do_sys_open+0x0 (int3, the copy single-stepped)',
      "kprobe:single-step-begun: copy of 'push %rbp' at slot SLOT",
      'interruption 2: #DB at kprobe_insn_page+0x1/0x1000',
      'kprobe:boosted (do_sys_open+0x0)',
      'kprobe:resumed: ip += orig - copy, ip = do_sys_open+0x1/0x40',
    ]);
    expect(countInterruptions(steps)).toBe('2 interruptions');
  });

  it('should end a hit taken without a single-step before the next trap', () => {
    const { timeline, sym } = watched('p:open do_sys_open', true);
    const steps = hitSteps(timeline, 0, sym, isHit)!;
    expect(steps.map((s) => s.line.trim())).toEqual([
      'interruption 1: #BP at do_sys_open+0x1/0x40',
      'kprobe:hit: do_sys_open+0x0 (int3 of a probe being optimized, sent to the detour)',
    ]);
  });

  it("should follow a kretprobe's hit to its return through the trampoline", () => {
    const { timeline, sym } = watched('r:ret do_sys_open $retval', true);
    const steps = hitSteps(timeline, 0, sym, isHit)!;
    expect(steps.map((s) => s.event.type)).toEqual([
      'trap:raised',
      'kprobe:hit',
      'kretprobe:return-address-swapped',
      'kretprobe:trampoline-hit',
    ]);
    expect(steps.at(-1)!.line).toBe(
      '      kretprobe:trampoline-hit: do_sys_open+0x0/0x40 returned 3, back to sys_open+0x16/0x20',
    );
  });

  it('should find nothing when no event is an anchor', () => {
    const { timeline, sym } = watched('p:open do_sys_open', true);
    expect(hitSteps(timeline, 0, sym, (e) => e.type === 'kretprobe:trampoline-hit')).toBeUndefined();
  });
});
