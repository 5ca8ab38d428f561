import type { AddressSpace, Cpu } from '@int3/cpu';
import { KernelError } from '../kernel-error.js';
import type { CpuSnapshot, MachineSnapshot } from './machine-snapshot.js';
import { PageInterner } from './page-interner.js';
import type { SnapshotProvider } from './snapshot-provider.js';
import { captureSpace, restoreSpace, type SpaceImage } from './space-image.js';

/** What a {@link MachineSnapshotter} needs of the machine. */
export interface SnapshotSource {
  /** The kernel address space (it owns the kernel half every user space shares). */
  readonly space: AddressSpace;
  readonly cpus: readonly Cpu[];
  /** The user address space of every task. */
  taskSpaces(): Iterable<AddressSpace>;
}

/**
 * Takes and restores {@link MachineSnapshot}s: memory page by page (contents interned and shared with
 * the previous snapshot of the same space), CPUs, the host kernel's parts and the registered providers.
 *
 * Restore order matters: Step 1 memory, Step 2 the kernel's parts, Step 3 CPUs (address space, then
 * registers, which flushes each TLB after the memory changes), Step 4 other packages' providers, which
 * may read a machine that is already back in place.
 */
export class MachineSnapshotter {
  private readonly providers = new Map<string, SnapshotProvider>();
  private readonly store = new PageInterner();
  /**
   * The image each space had at the last capture or restore: the base for sharing unchanged pages.
   * Only the spaces of that snapshot, so the space of a task gone since is not kept alive by it.
   */
  private last: ReadonlyMap<AddressSpace, SpaceImage> = new Map();

  constructor(
    private readonly owner: object,
    private readonly source: SnapshotSource,
    private readonly parts: ReadonlyMap<string, SnapshotProvider>,
  ) {}

  /** Adds a provider; returns its unregister handle. Names are unique. */
  register(name: string, provider: SnapshotProvider): () => void {
    if (this.providers.has(name) || this.parts.has(name)) {
      throw new KernelError('EEXIST', `a snapshot provider named '${name}' is already registered`);
    }
    this.providers.set(name, provider);
    return () => {
      if (this.providers.get(name) === provider) this.providers.delete(name);
    };
  }

  /** Snapshots the machine as it is now. */
  capture(): MachineSnapshot {
    const spaces = new Map<AddressSpace, SpaceImage>();
    const add = (space: AddressSpace) => {
      if (spaces.has(space)) return;
      spaces.set(space, captureSpace(space, this.last.get(space), this.store));
    };
    add(this.source.space);
    for (const space of this.source.taskSpaces()) add(space);
    const cpus = this.source.cpus.map((c): CpuSnapshot => {
      add(c.addressSpace);
      return Object.freeze({
        context: Object.freeze(c.saveContext()),
        space: c.addressSpace,
        instrumentationMode: c.instrumentationMode,
      });
    });
    this.last = spaces;
    const save = (m: ReadonlyMap<string, SnapshotProvider>) =>
      new Map([...m].map(([name, p]) => [name, p.save()] as const));
    return Object.freeze({
      owner: this.owner,
      spaces,
      cpus: Object.freeze(cpus),
      kernel: save(this.parts),
      providers: save(this.providers),
    });
  }

  /** Puts the machine back into the state of `s`, which it must have taken itself. */
  restore(s: MachineSnapshot): void {
    if (s.owner !== this.owner) {
      throw new KernelError('EINVAL', 'a snapshot can only be restored into the machine that took it');
    }
    for (const [space, image] of s.spaces) restoreSpace(space, image);
    this.last = s.spaces;
    for (const [name, part] of this.parts) part.restore(s.kernel.get(name));
    s.cpus.forEach((saved, i) => {
      const c = this.source.cpus[i];
      c.addressSpace = saved.space;
      c.restoreContext(saved.context);
      c.instrumentationMode = saved.instrumentationMode;
    });
    for (const [name, p] of this.providers) p.restore(s.providers.get(name));
  }
}
