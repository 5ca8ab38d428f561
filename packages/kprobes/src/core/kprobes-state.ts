import type { BoostSnapshot } from '../arch/x86/kprobe-booster.js';
import type { ControlBlock } from './control-block.js';
import type { Kprobe } from './kprobe.js';
import type { Kprobes } from './kprobes.js';
import type { Kretprobes } from './kretprobes.js';
import type { OptimizerState } from './optimizer-state.js';

/** kprobes' dynamic state at a snapshot: what a hit in progress or a return in flight depends on. */
export interface KprobesState {
  readonly kcb: readonly ControlBlock[];
  readonly counters: readonly (readonly [Kprobe, number | undefined, number | undefined])[];
  readonly armed: readonly (readonly [bigint, boolean, boolean])[];
  readonly allArmed: boolean;
  readonly kretprobes: unknown;
  readonly boost: BoostSnapshot;
  readonly optimizer: OptimizerState;
}

/**
 * Registers kprobes' snapshot provider on its machine, so that restoring a machine snapshot (seeking
 * in a replay) also restores the per-CPU control blocks, kretprobe instances in flight, `nmissed`
 * counters and which addresses are armed. Registrations themselves are inputs: they are not part of it.
 */
export function registerKprobesSnapshot(k: Kprobes, kretprobes: Kretprobes): void {
  k.m.kernel.registerSnapshotProvider('kprobes', {
    save: (): KprobesState =>
      Object.freeze({
        kcb: k.kcb.map((c) => c.copy()),
        counters: [...k.registeredProbes()].map((p) => [p, p.nmissed, p.flags] as const),
        armed: [...k.sites()].map((s) => [s.addr, s.armed, s.gone] as const),
        allArmed: k.allArmed,
        kretprobes: kretprobes.save(),
        boost: k.arch.booster.save(),
        optimizer: k.optimizer.save(),
      }),
    restore: (state) => {
      if (state === undefined) return;
      const s = state as KprobesState;
      for (let i = 0; i < s.kcb.length; i++) k.kcb[i].assign(s.kcb[i]);
      for (const [p, nmissed, flags] of s.counters) {
        p.nmissed = nmissed;
        p.flags = flags;
      }
      for (const [addr, armed, gone] of s.armed) {
        const site = k.get(addr);
        if (site) {
          site.armed = armed;
          site.gone = gone;
        }
      }
      k.restoreAllArmed(s.allArmed);
      kretprobes.restore(s.kretprobes);
      k.arch.booster.restore(s.boost);
      k.optimizer.restore(s.optimizer);
    },
  });
}
