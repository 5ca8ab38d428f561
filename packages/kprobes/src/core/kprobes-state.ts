import type { KprobesArch, KprobesArchHost } from './arch.js';
import type { ControlBlock } from './control-block.js';
import type { Kprobe } from './kprobe.js';
import type { KprobesHost } from './kprobes-host.js';
import type { KprobeOptimizer } from './optimizer.js';
import type { OptimizerState } from './optimizer-state.js';

/** kprobes' dynamic state at a snapshot: what a hit in progress or a return in flight depends on. */
export interface KprobesState {
  /** What is registered where (restored first: the rest refers to it). */
  readonly registrations: unknown;
  readonly kcb: readonly ControlBlock[];
  readonly counters: readonly (readonly [Kprobe, number | undefined, number | undefined])[];
  readonly armed: readonly (readonly [bigint, boolean, boolean])[];
  readonly allArmed: boolean;
  readonly kretprobes: unknown;
  /** The arch's state (boost states, detour buffers), opaque here. */
  readonly arch: unknown;
  readonly optimizer: OptimizerState;
}

/** What the snapshot reads and restores of the core besides its parts. */
export interface KprobesSnapshotHost extends Pick<KprobesArchHost, 'kcb' | 'sites' | 'get'> {
  readonly allArmed: boolean;
  saveRegistrations(): unknown;
  restoreRegistrations(s: unknown): void;
  registeredProbes(): IterableIterator<Kprobe>;
  restoreAllArmed(on: boolean): void;
}

/** A part with state of its own in the snapshot. */
interface Saves<S> {
  save(): S;
  restore(s: S): void;
}

/**
 * Registers kprobes' snapshot provider on its machine, so that restoring a machine snapshot (seeking
 * in a replay) also restores the per-CPU control blocks, kretprobe instances in flight, `nmissed`
 * counters, which addresses are armed, and the registrations themselves (kprobes, kretprobes, jprobes):
 * a probe registered after the snapshot is no longer registered once it is restored, and one
 * unregistered since is registered again, as the restored memory (int3 or original bytes) says.
 */
export function registerKprobesSnapshot(
  host: Pick<KprobesHost, 'registerSnapshotProvider'>,
  k: KprobesSnapshotHost,
  kretprobes: Saves<unknown>,
  jprobes: Saves<unknown>,
  arch: Pick<KprobesArch, 'save' | 'restore'>,
  optimizer: Pick<KprobeOptimizer, 'save' | 'restore'>,
): void {
  host.registerSnapshotProvider('kprobes', {
    save: (): KprobesState =>
      Object.freeze({
        registrations: Object.freeze([k.saveRegistrations(), jprobes.save()]),
        kcb: k.kcb.map((c) => c.copy()),
        counters: [...k.registeredProbes()].map((p) => [p, p.nmissed, p.flags] as const),
        armed: [...k.sites()].map((s) => [s.addr, s.armed, s.gone] as const),
        allArmed: k.allArmed,
        kretprobes: kretprobes.save(),
        arch: arch.save(),
        optimizer: optimizer.save(),
      }),
    restore: (state) => {
      if (state === undefined) return;
      const s = state as KprobesState;
      const [registrations, jp] = s.registrations as readonly [unknown, unknown];
      k.restoreRegistrations(registrations);
      jprobes.restore(jp);
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
      arch.restore(s.arch);
      optimizer.restore(s.optimizer);
    },
  });
}
