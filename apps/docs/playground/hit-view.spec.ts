import { createTracedSession, type MechanismEvent, type TracedSession } from '@int3/cli';
import { readSampleImage } from '@int3/kernel';
import { describe, expect, it } from 'vitest';
import { hitView } from './hit-view.js';

/** A machine that ran `cat /etc/motd` under `definition`, and its traps and kprobes steps. */
function ran(definition: string, optimize: boolean): { t: TracedSession; timeline: MechanismEvent[] } {
  const t = createTracedSession({ bytes: readSampleImage(), name: 'vmlinux' }, 2);
  const timeline: MechanismEvent[] = [];
  t.kprobes.events$.subscribe((e) => timeline.push(e));
  t.session.machine.streams.traps$.subscribe((e) => timeline.push(e));
  if (!optimize) t.fs.write('/proc/sys/debug/kprobes-optimization', '0\n');
  t.fs.write('kprobe_events', `${definition}\n`, { append: true });
  t.fs.write('events/enable', '1\n');
  t.session.runWorkloads([['cat', '/etc/motd']]);
  return { t, timeline };
}

describe(hitView, () => {
  it('should mark the probed instruction and its copy in the slot, and link each step to the rows it names', () => {
    const { t, timeline } = ran('p:open do_sys_open', false);
    const view = hitView(t, timeline)!;
    const open = t.session.machine.kallsyms.lookupName('do_sys_open')!.address.toString(16);
    expect(view.heading).toBe('the first hit of do_sys_open+0x0, on CPU 0: 2 interruptions');
    expect(view.function.name).toBe('do_sys_open');
    expect(view.function.rows.filter((r) => r.marked).map((r) => r.address)).toEqual([open]);
    const slot = view.slot!;
    expect(slot.rows[0]).toMatchObject({ address: slot.address, marked: true });
    expect(slot.rows[0].text).toMatch(/^55 +push %rbp$/);
    // The copy was boosted: its jmp back to the instruction after the probe follows it.
    expect(slot.rows.map((r) => r.text.replace(/^[0-9a-f ]+ {2,}/, ''))).toEqual([
      'push %rbp',
      expect.stringMatching(/^jmp 0x/),
    ]);
    const bp = view.steps.find((s) => s.line.includes('#BP'))!;
    // A #BP's rip is past the int3: the probed instruction, and the one rip names.
    expect(bp.links).toEqual([open, (BigInt(`0x${open}`) + 1n).toString(16)]);
    expect(view.steps.find((s) => s.line.includes('single-step-begun'))!.links).toEqual([slot.address]);
  });

  it("should take the first hit of a kretprobe's function, not the trampoline's", () => {
    const { t, timeline } = ran('r:ret do_sys_open $retval', true);
    expect(hitView(t, timeline)!.heading).toMatch(/^the first hit of do_sys_open\+0x0, on CPU 0: 1 interruption$/);
  });

  it('should show nothing when no probe was hit', () => {
    const { t, timeline } = ran('p:mk sys_mkdir', true);
    expect(hitView(t, timeline)).toBeUndefined();
  });
});
