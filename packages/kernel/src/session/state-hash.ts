import { createHash, type Hash } from 'node:crypto';
import { type AddressSpace, sharedPageWrites } from '@int3/cpu';
import type { Machine } from '../machine/machine.js';
import { KernelLayout } from '../mm/kernel-layout.js';
import type { Task } from '../sched/task.js';
import { saveTaskRegs, type TaskRegs } from '../sched/task-regs.js';

/** One scratch buffer for every 64-bit value hashed (`update` copies it at once). */
const scratch = Buffer.alloc(8);

function u64(h: Hash, v: bigint): void {
  scratch.writeBigUInt64LE(BigInt.asUintN(64, v));
  h.update(scratch);
}

function regs(h: Hash, r: TaskRegs): void {
  for (const g of r.gpr) u64(h, g);
  for (const v of [r.rip, BigInt(r.rflags), BigInt(r.cs), BigInt(r.ss), r.fsBase, r.gsBase, r.kernelGsBase]) u64(h, v);
}

const sha256 = () => createHash('sha256');

/** Page key (`address >> 12`) of the first kernel-half address: `AddressSpace`'s own keys are below it. */
const KERNEL_HALF_KEY = Number(KernelLayout.KERNEL_HALF >> 12n);

/** Pages per group: one page table's worth (512 × 4 KiB = 2 MiB), so no group straddles the kernel half. */
const GROUP_SHIFT = 9;
const GROUP_PAGES = 1 << GROUP_SHIFT;
/** Scratch for one group's page entries (48 bytes each), hashed in one update. */
const groupBytes = Buffer.alloc(GROUP_PAGES * 48);

/** Counts of what a {@link StateHasher} hashed, for tests and benchmarks. */
export interface StateHashStats {
  /** Pages whose bytes were hashed (each page's digest is kept until the page changes). */
  readonly pagesHashed: number;
  /** Groups of 512 pages whose digest was recomputed. */
  readonly groupsHashed: number;
  /** Tasks whose digest was recomputed. */
  readonly tasksHashed: number;
}

/**
 * The digests of one address space: each page's SHA-256, each group's over its pages, the space's
 * over its groups — all kept, and brought up to date from the space's soft-dirty set.
 */
class SpaceDigest {
  private readonly pages = new Map<number, Buffer>();
  private readonly groups = new Map<number, Buffer>();
  /** Over every group; over the groups of the lower half. Undefined: recompute. */
  private all: Buffer | undefined;
  private lower: Buffer | undefined;
  /** {@link sharedPageWrites} when this digest was last brought up to date. */
  private shared = -1;
  /** The {@link StateHasher.hash} call that last brought it up to date. */
  epoch = -1;

  constructor(private readonly space: AddressSpace) {}

  /** True when these are the digests of `space`. */
  owns(space: AddressSpace): boolean {
    return this.space === space;
  }

  /** Step 1 of a hash: takes the space's changes and rehashes the pages and groups they touch. */
  update(stats: { pagesHashed: number; groupsHashed: number }): void {
    const space = this.space;
    let changed: ReadonlySet<number> = space.takeSoftDirty();
    if (changed.size === 0 && this.shared === sharedPageWrites.value) return;
    if (this.shared !== sharedPageWrites.value) {
      // A page this space shares may have been written through another space: rehash all of them.
      this.shared = sharedPageWrites.value;
      changed = new Set([...this.pages.keys(), ...space.pageMap.keys()]);
    }
    const groups = new Set<number>();
    for (const key of changed) {
      const page = space.pageMap.get(key);
      if (page === undefined) this.pages.delete(key);
      else {
        this.pages.set(key, sha256().update(page.data).digest());
        stats.pagesHashed++;
      }
      groups.add(Math.floor(key / GROUP_PAGES));
    }
    if (groups.size === 0) return;
    for (const g of groups) {
      // One update per group: (address, flags, digest) of each page, 48 bytes, in address order.
      let n = 0;
      for (let key = g * GROUP_PAGES; key < (g + 1) * GROUP_PAGES; key++) {
        const page = space.pageMap.get(key);
        if (page === undefined) continue;
        groupBytes.writeBigUInt64LE(BigInt(key) << 12n, n);
        groupBytes.writeBigUInt64LE(BigInt(page.flags), n + 8);
        this.pages.get(key)!.copy(groupBytes, n + 16);
        n += 48;
      }
      if (n > 0) this.groups.set(g, sha256().update(groupBytes.subarray(0, n)).digest());
      else this.groups.delete(g);
      stats.groupsHashed++;
    }
    this.all = undefined;
    this.lower = undefined;
  }

  /** Over every page of the space (the kernel space's part of the state hash). */
  allPages(): Buffer {
    this.all ??= this.over(() => true);
    return this.all;
  }

  /** Over the pages below the kernel half (a task's user memory; the kernel half is the kernel's). */
  lowerHalf(): Buffer {
    this.lower ??= this.over((g) => g * GROUP_PAGES < KERNEL_HALF_KEY);
    return this.lower;
  }

  private over(keep: (group: number) => boolean): Buffer {
    const h = sha256();
    for (const g of [...this.groups.keys()].filter(keep).sort((x, y) => x - y)) {
      u64(h, BigInt(g));
      h.update(this.groups.get(g)!);
    }
    return h.digest();
  }
}

/** A task's digest and what it was computed from. */
interface TaskDigest {
  readonly state: string;
  readonly cpu: number;
  readonly exitCode: number;
  readonly context: TaskRegs | undefined;
  readonly memory: Buffer;
  readonly digest: Buffer;
  /** The task's address space's digests. */
  readonly space: SpaceDigest;
}

/**
 * Computes a machine's {@link stateHash} from digests it keeps between calls: a page's bytes are
 * hashed again only when the page changed (its space's soft-dirty set says so), a group of 512 pages
 * only when one of its pages did, a task only when its state, saved registers or memory did. A
 * checkpoint then costs what changed since the last one, not what the machine holds: n spawned tasks
 * cost n page walks once, not once per checkpoint.
 *
 * Each call takes the soft-dirty sets of the spaces it reads, then flushes every CPU's write
 * translations, so that the next write to any page records it again.
 */
export class StateHasher {
  private readonly spaces = new WeakMap<AddressSpace, SpaceDigest>();
  private readonly tasks = new WeakMap<Task, TaskDigest>();
  private calls = 0;
  /** What the last {@link hash} recomputed. */
  lastStats: StateHashStats = { pagesHashed: 0, groupsHashed: 0, tasksHashed: 0 };

  constructor(private readonly m: Machine) {}

  /** The state hash of the machine as it is now (hex). */
  hash(): string {
    const m = this.m;
    const stats = { pagesHashed: 0, groupsHashed: 0, tasksHashed: 0 };
    const epoch = ++this.calls;
    const upToDate = (d: SpaceDigest) => {
      if (d.epoch !== epoch) {
        d.epoch = epoch;
        d.update(stats);
      }
      return d;
    };
    const digestOf = (space: AddressSpace) => {
      let d = this.spaces.get(space);
      if (d === undefined) {
        d = new SpaceDigest(space);
        this.spaces.set(space, d);
      }
      return upToDate(d);
    };
    const h = sha256();
    // Step 1: the kernel's memory.
    h.update(digestOf(m.space).allPages());
    // Step 2: each CPU.
    for (let c = 0; c < m.cpus.length; c++) {
      regs(h, saveTaskRegs(m.cpus[c]));
      u64(h, BigInt(m.clock(c)));
      u64(h, BigInt(m.sched.current[c]?.pid ?? -1));
    }
    // Step 3: each task in pid order (the table is in pid order unless pids wrapped).
    let tasks = [...m.sched.tasks.values()];
    if (tasks.some((t, i) => i > 0 && tasks[i - 1].pid > t.pid)) tasks = tasks.sort((a, b) => a.pid - b.pid);
    const digests = Buffer.allocUnsafe(tasks.length * 32);
    for (let i = 0; i < tasks.length; i++) {
      const t = tasks[i];
      let d = this.tasks.get(t);
      const memory = (d?.space.owns(t.mm) ? upToDate(d.space) : digestOf(t.mm)).lowerHalf();
      if (
        d === undefined ||
        d.state !== t.state ||
        d.cpu !== t.cpu ||
        d.exitCode !== t.exitCode ||
        d.context !== t.context ||
        d.memory !== memory
      ) {
        const th = sha256().update(`${t.pid}:${t.state}:${t.cpu}:${t.exitCode}:`);
        if (t.context) regs(th, t.context);
        th.update(memory);
        const space = digestOf(t.mm);
        d = {
          state: t.state,
          cpu: t.cpu,
          exitCode: t.exitCode,
          context: t.context,
          memory,
          digest: th.digest(),
          space,
        };
        this.tasks.set(t, d);
        stats.tasksHashed++;
      }
      digests.set(d.digest, i * 32);
    }
    h.update(digests);
    // Step 4: the kernel log (bounded) and the console (its running digest).
    for (const r of m.printk.records()) h.update(`${r.seq}:${r.timestampNs}:${r.level}:${r.cpu}:${r.text}\n`);
    h.update(m.consoleLog.digest());
    // Step 5: later writes to the pages read must be recorded again.
    for (const c of m.cpus) c.flushWriteTlb();
    this.lastStats = stats;
    return h.digest('hex');
  }
}

const hashers = new WeakMap<Machine, StateHasher>();

/** The one {@link StateHasher} of a machine (the soft-dirty sets it takes cannot be shared). */
export function stateHasher(m: Machine): StateHasher {
  let h = hashers.get(m);
  if (h === undefined) {
    h = new StateHasher(m);
    hashers.set(m, h);
  }
  return h;
}

/**
 * A SHA-256 of everything the guest can observe and everything that decides what happens next:
 * every page of kernel memory and of each task's user memory (address, permissions, bytes), every
 * CPU's registers and virtual clock, each task's state and saved registers, the kernel log and the
 * console. Two runs with equal hashes at every checkpoint went through the same states. Computed as
 * a tree of digests (event-log.md §2, checkpoint), kept between calls, so a call costs what changed.
 */
export function stateHash(m: Machine): string {
  return stateHasher(m).hash();
}
