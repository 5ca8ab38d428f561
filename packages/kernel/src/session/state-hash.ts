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
/** Bytes of a page's entry in its group: address, flags (64-bit little-endian each), SHA-256 of its bytes. */
const ENTRY = 48;

/**
 * One group's entries, kept as the bytes its digest is computed over: the mapped pages' entries in
 * address order, back to back, so the group's digest is one SHA-256 over `bytes` with no work per
 * page; a page mapped or unmapped moves the entries after it by one (a memmove).
 */
class PageGroup {
  /** Page numbers within the group (0..511) of the entries, ascending. */
  private readonly slots = new Int16Array(GROUP_PAGES);
  private readonly bytes = Buffer.alloc(GROUP_PAGES * ENTRY);
  count = 0;

  /** Writes the entry of page `key` (inserting it in order when new). */
  set(key: number, flags: number, digest: Buffer): void {
    const slot = key & (GROUP_PAGES - 1);
    let i = this.find(slot);
    if (i === this.count || this.slots[i] !== slot) {
      this.slots.copyWithin(i + 1, i, this.count);
      this.bytes.copyWithin((i + 1) * ENTRY, i * ENTRY, this.count * ENTRY);
      this.slots[i] = slot;
      this.count++;
      const at = i * ENTRY;
      // key << 12 as two 32-bit halves (keys reach 2^36: no 32-bit shift).
      this.bytes.writeUInt32LE(((key % 0x100000) * 4096) >>> 0, at);
      this.bytes.writeUInt32LE(Math.floor(key / 0x100000), at + 4);
    }
    i *= ENTRY;
    this.bytes.writeUInt32LE(flags >>> 0, i + 8);
    this.bytes.writeUInt32LE(0, i + 12);
    digest.copy(this.bytes, i + 16);
  }

  /** Drops the entry of page `key`, if any. */
  delete(key: number): void {
    const slot = key & (GROUP_PAGES - 1);
    const i = this.find(slot);
    if (i === this.count || this.slots[i] !== slot) return;
    this.slots.copyWithin(i, i + 1, this.count);
    this.bytes.copyWithin(i * ENTRY, (i + 1) * ENTRY, this.count * ENTRY);
    this.count--;
  }

  digest(): Buffer {
    return sha256()
      .update(this.bytes.subarray(0, this.count * ENTRY))
      .digest();
  }

  /** Index of the first entry whose slot is at least `slot`. */
  private find(slot: number): number {
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.slots[mid] < slot) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** Counts of what a {@link StateHasher} hashed, for tests and benchmarks. */
export interface StateHashStats {
  /** Pages whose bytes were hashed (each page's digest is kept until the page changes). */
  readonly pagesHashed: number;
  /** Groups of 512 pages whose digest was recomputed. */
  readonly groupsHashed: number;
  /** Address spaces whose changes were read (those written since the last hash). */
  readonly spacesVisited: number;
  /** Tasks whose digest was recomputed (those that changed, joined or left since the last hash). */
  readonly tasksHashed: number;
  /** Groups of 64 tasks whose digest was recomputed. */
  readonly taskGroupsHashed: number;
}

type MutableStats = { -readonly [K in keyof StateHashStats]: number };

/**
 * The digests of one address space: each page's SHA-256, each group's over its pages, the space's
 * over its groups — all kept, and brought up to date from the space's soft-dirty set.
 */
class SpaceDigest {
  private readonly entries = new Map<number, PageGroup>();
  private readonly groups = new Map<number, Buffer>();
  /** Over every group; over the groups of the lower half. Undefined: recompute. */
  private all: Buffer | undefined;
  private lower: Buffer | undefined;
  /** The {@link StateHasher.hash} call that last brought it up to date. */
  epoch = -1;

  constructor(readonly space: AddressSpace) {}

  /**
   * Step 1 of a hash: takes the space's changes and rehashes the pages and groups they touch; with
   * `shared`, every page of the space (one it shares may have been written through another space).
   * True when a digest changed.
   */
  update(stats: MutableStats, shared: boolean): boolean {
    const space = this.space;
    stats.spacesVisited++;
    let changed: ReadonlySet<number> = space.takeSoftDirty();
    if (shared) {
      // Start again from the pages mapped now.
      space.takeSoftDirty();
      this.entries.clear();
      this.groups.clear();
      this.all = undefined;
      this.lower = undefined;
      changed = new Set(space.pageMap.keys());
    }
    if (changed.size === 0) return shared;
    const touched = new Set<number>();
    for (const key of changed) {
      const g = Math.floor(key / GROUP_PAGES);
      let group = this.entries.get(g);
      if (group === undefined) {
        group = new PageGroup();
        this.entries.set(g, group);
      }
      const page = space.pageMap.get(key);
      if (page === undefined) group.delete(key);
      else {
        group.set(key, page.flags, sha256().update(page.data).digest());
        stats.pagesHashed++;
      }
      touched.add(g);
    }
    for (const g of touched) {
      const group = this.entries.get(g)!;
      if (group.count > 0) this.groups.set(g, group.digest());
      else {
        this.groups.delete(g);
        this.entries.delete(g);
      }
      stats.groupsHashed++;
    }
    this.all = undefined;
    this.lower = undefined;
    return true;
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

/** Tasks per group of the task tree: pids `64g … 64g + 63` (Linux's pid_max default is 32,768: 512 groups). */
const TASK_GROUP_SHIFT = 6;

/**
 * The tasks' part of the state hash: each task's digest by pid, a group's digest over its tasks
 * (pid, digest) in pid order, and the tree's over its groups (number, digest) in order — kept, so a
 * checkpoint rehashes the groups of the tasks that changed and one digest over the groups.
 */
class TaskTree {
  private readonly groups = new Map<number, Map<number, Buffer>>();
  private readonly digests = new Map<number, Buffer>();
  private readonly dirty = new Set<number>();
  private root: Buffer | undefined;

  set(pid: number, digest: Buffer): void {
    const g = pid >> TASK_GROUP_SHIFT;
    let group = this.groups.get(g);
    if (group === undefined) {
      group = new Map();
      this.groups.set(g, group);
    }
    group.set(pid, digest);
    this.dirty.add(g);
  }

  delete(pid: number): void {
    const g = pid >> TASK_GROUP_SHIFT;
    if (this.groups.get(g)?.delete(pid)) this.dirty.add(g);
  }

  /** The tree's digest, recomputing the groups changed since the last call. */
  digest(stats: MutableStats): Buffer {
    if (this.root !== undefined && this.dirty.size === 0) return this.root;
    const entry = Buffer.allocUnsafe(40);
    for (const g of this.dirty) {
      const group = this.groups.get(g)!;
      if (group.size === 0) {
        this.groups.delete(g);
        this.digests.delete(g);
        continue;
      }
      const h = sha256();
      for (const pid of [...group.keys()].sort((x, y) => x - y)) {
        entry.writeBigUInt64LE(BigInt(pid));
        group.get(pid)!.copy(entry, 8);
        h.update(entry);
      }
      this.digests.set(g, h.digest());
      stats.taskGroupsHashed++;
    }
    this.dirty.clear();
    const h = sha256();
    for (const g of [...this.digests.keys()].sort((x, y) => x - y)) {
      entry.writeBigUInt64LE(BigInt(g));
      this.digests.get(g)!.copy(entry, 8);
      h.update(entry);
    }
    this.root = h.digest();
    return this.root;
  }
}

/**
 * Computes a machine's {@link stateHash} from digests it keeps between calls: a page's bytes are
 * hashed again only when the page changed (its space's soft-dirty set says so), a group of 512 pages
 * only when one of its pages did, a task only when its state, saved registers or memory did, a group
 * of 64 tasks only when one of its tasks did. And it visits only what changed: the spaces written
 * since the last call (the kernel space lists them, {@link AddressSpace.takeDirtySpaces}) and the
 * tasks that changed (the scheduler lists them, {@link SchedulerView.takeChangedTasks}) — so a
 * checkpoint costs what changed since the last one, not what the machine holds: n spawned tasks cost
 * n page walks once, and no walk over the n tasks per checkpoint.
 *
 * Each call takes the soft-dirty sets of the spaces it reads, then flushes every CPU's write
 * translations, so that the next write to any page records it again.
 */
export class StateHasher {
  private readonly spaces = new WeakMap<AddressSpace, SpaceDigest>();
  /** Each task of the table as last hashed: the digests of its space. */
  private readonly tasks = new Map<Task, SpaceDigest>();
  /** The tasks of each space (threads share one). */
  private readonly bySpace = new Map<SpaceDigest, Set<Task>>();
  /** Spaces of tasks not built over the kernel's, which lists no changes of theirs: read every time. */
  private readonly unrooted = new Set<SpaceDigest>();
  /** Which task holds each pid of {@link tree}. */
  private readonly holders = new Map<number, Task>();
  private readonly tree = new TaskTree();
  /** {@link sharedPageWrites} when the spaces were last brought up to date. */
  private shared = -1;
  private calls = 0;
  /** What the last {@link hash} recomputed. */
  lastStats: StateHashStats = {
    pagesHashed: 0,
    groupsHashed: 0,
    spacesVisited: 0,
    tasksHashed: 0,
    taskGroupsHashed: 0,
  };

  constructor(private readonly m: Machine) {}

  /** The state hash of the machine as it is now (hex). */
  hash(): string {
    const m = this.m;
    const stats: MutableStats = {
      pagesHashed: 0,
      groupsHashed: 0,
      spacesVisited: 0,
      tasksHashed: 0,
      taskGroupsHashed: 0,
    };
    const epoch = ++this.calls;
    const first = epoch === 1;
    const shared = this.shared !== sharedPageWrites.value;
    this.shared = sharedPageWrites.value;
    const changed = m.sched.takeChangedTasks();
    const dirty = new Set<Task>(changed === 'all' ? [] : changed);
    if (first || changed === 'all') {
      // Every task of the table, and every task hashed before (those gone leave the tree).
      for (const t of m.sched.tasks.values()) dirty.add(t);
      for (const t of this.tasks.keys()) dirty.add(t);
    }
    /** A space's digests, brought up to date once per call; true when they changed. */
    const refresh = (d: SpaceDigest): boolean => {
      if (d.epoch === epoch) return false;
      d.epoch = epoch;
      return d.update(stats, shared);
    };
    const digestOf = (space: AddressSpace): SpaceDigest => {
      let d = this.spaces.get(space);
      if (d === undefined) {
        d = new SpaceDigest(space);
        this.spaces.set(space, d);
        refresh(d);
      }
      return d;
    };
    // Step 1: memory — the spaces written since the last call (all of them after a shared write).
    const written = new Set(m.space.takeDirtySpaces());
    if (shared) for (const d of this.bySpace.keys()) written.add(d.space);
    for (const d of this.unrooted) written.add(d.space);
    written.add(m.space);
    for (const space of written) {
      const d = this.spaces.get(space);
      if (d !== undefined && refresh(d)) for (const t of this.bySpace.get(d) ?? []) dirty.add(t);
    }
    const h = sha256();
    h.update(digestOf(m.space).allPages());
    // Step 2: each CPU.
    for (let c = 0; c < m.cpus.length; c++) {
      regs(h, saveTaskRegs(m.cpus[c]));
      u64(h, BigInt(m.clock(c)));
      u64(h, BigInt(m.sched.current[c]?.pid ?? -1));
    }
    // Step 3: the tasks that changed, joined or left the table; then the task tree.
    for (const t of dirty) {
      const was = this.tasks.get(t);
      if (was !== undefined) {
        const peers = this.bySpace.get(was);
        peers?.delete(t);
        if (peers?.size === 0) {
          this.bySpace.delete(was);
          this.unrooted.delete(was);
        }
        this.tasks.delete(t);
        if (this.holders.get(t.pid) === t) {
          this.holders.delete(t.pid);
          this.tree.delete(t.pid);
        }
      }
      if (m.sched.tasks.get(t.pid) !== t) continue;
      const space = digestOf(t.mm);
      const th = sha256().update(`${t.pid}:${t.state}:${t.cpu}:${t.exitCode}:`);
      if (t.context) regs(th, t.context);
      th.update(space.lowerHalf());
      this.tree.set(t.pid, th.digest());
      this.holders.set(t.pid, t);
      this.tasks.set(t, space);
      let peers = this.bySpace.get(space);
      if (peers === undefined) {
        peers = new Set();
        this.bySpace.set(space, peers);
        if (t.mm.kernel !== m.space && t.mm !== m.space) this.unrooted.add(space);
      }
      peers.add(t);
      stats.tasksHashed++;
    }
    h.update(this.tree.digest(stats));
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
