/**
 * State another package keeps beside the machine (kprobes' per-CPU control blocks, kretprobe
 * instances, …), saved into and restored from machine snapshots. `save` returns an immutable copy
 * (the snapshot may be restored many times); `restore` puts the package back into that state. A
 * provider registered after a snapshot was taken gets `restore(undefined)`: back to its initial state.
 *
 * @example
 * m.kernel.registerSnapshotProvider('kprobes', {
 *   save: () => Object.freeze(kcbs.map((k) => k.copy())),
 *   restore: (s) => restoreKcbs(s as readonly Kcb[] | undefined),
 * });
 */
export interface SnapshotProvider {
  save(): unknown;
  restore(state: unknown): void;
}
