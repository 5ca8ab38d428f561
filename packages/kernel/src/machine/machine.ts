import {
  AddressSpace,
  Cpu,
  ExceptionVector,
  type Insn,
  loadElf,
  Msr,
  PAGE_SIZE,
  PageFlags,
  Reg,
  type RunResult,
  Selector,
  type TrapEvent,
} from '@int3/cpu';
import { merge, type Observable, Subject } from 'rxjs';
import { type KernelImage, parseKernelImage } from '../boot/kernel-image.js';
import type { DieEvent, KernelEvent, MachineEvent, PrintkEvent, TaskEvent } from '../events/kernel-event.js';
import { Kallsyms } from '../kallsyms/kallsyms.js';
import { KernelError } from '../kernel-error.js';
import { KernelLayout } from '../mm/kernel-layout.js';
import { KernelMemory } from '../mm/kernel-memory.js';
import { ModuleLoader } from '../modules/module-loader.js';
import { PrintkBuffer } from '../printk/printk-buffer.js';
import { PcpuHot, Scheduler, type SchedulerState } from '../sched/scheduler.js';
import { Task } from '../sched/task.js';
import { AppendOnlyHistory, type HistoryState } from '../snapshot/append-only-history.js';
import type { MachineSnapshot } from '../snapshot/machine-snapshot.js';
import { MachineSnapshotter } from '../snapshot/machine-snapshotter.js';
import type { SnapshotProvider } from '../snapshot/snapshot-provider.js';
import { NS_PER_INSTRUCTION } from '../time/virtual-time.js';
import { DIE_NAMES, DieChain } from '../traps/die-chain.js';
import { PtRegs } from '../traps/pt-regs.js';
import { TrapRouter } from '../traps/trap-router.js';
import { GuestCaller } from './guest-caller.js';
import { HOST_CALL_JUMPED, type HostCallContext, type HostCallResult, HostCalls, type HostGate } from './host-calls.js';
import type { KernelApi } from './kernel-api.js';
import { bindKernelServices } from './kernel-services.js';
import { RunLoop, type RunLoopState, type RunOptions, type RunOutcome } from './run-loop.js';
import { spawnWorkload } from './spawn-workload.js';

export type { RunOptions, RunOutcome } from './run-loop.js';

/** How a machine is built. */
export interface MachineOptions {
  /** The kernel ELF (`vmlinux`). */
  readonly image: Uint8Array;
  /** Name used in messages (the file name). */
  readonly imageName?: string;
  /** Number of CPUs, 1..64 (default 2). */
  readonly cpus?: number;
  /** Virtual instructions a CPU runs before the next CPU's turn (default 10,000). */
  readonly quantum?: number;
  /** Finds a workload's ELF by program name (`cat`, `fork`, …). */
  readonly programs?: (name: string) => Uint8Array | undefined;
  /** Panic on the first oops instead of killing the task (`panic_on_oops`). */
  readonly panicOnOops?: boolean;
  /** Instructions a host-to-guest call may run before it is declared runaway (default 50 M). */
  readonly guestCallLimit?: number;
}

/** One write to `/dev/console`. */
export interface ConsoleWrite {
  readonly at: number;
  readonly cpu: number;
  readonly pid: number;
  readonly text: string;
}

/** The machine's own part of a snapshot: clocks, the round in progress, console, panic state. */
interface MachineOwnState {
  readonly loop: RunLoopState;
  readonly percpuUsed: number;
  readonly panicked: string | undefined;
  readonly console: HistoryState<ConsoleWrite>;
  readonly exTable: readonly (readonly [bigint, bigint])[];
}

const decoder = new TextDecoder();
/** What a decoded gate caches when no inline gate is bound there (the run loop exits at it). */
const NOT_INLINE = Object.freeze({ inline: false as const });
const KERNEL_DATA = PageFlags.Present | PageFlags.Writable | PageFlags.NoExecute;

/**
 * A booted int3 machine: the guest kernel image on N CPUs, with the host kernel around it. Runs are
 * deterministic: CPUs take turns in fixed quanta of virtual instructions, and instrumentation costs no
 * virtual time, so the same inputs give the same interleaving, probed or not.
 *
 * @example
 * const m = Machine.boot({ image, programs });
 * const task = m.spawn(['cat', '/etc/motd']);
 * m.run({ until: () => task.exited });
 */
export class Machine {
  readonly space = new AddressSpace();
  readonly memory: KernelMemory;
  readonly kallsyms = new Kallsyms();
  readonly printk = new PrintkBuffer();
  readonly dieChain = new DieChain<PtRegs>();
  readonly hostCalls: HostCalls;
  readonly cpus: readonly Cpu[];
  /** `struct pt_regs` view of each CPU. */
  readonly regs: readonly PtRegs[];
  private readonly gateContexts: readonly HostCallContext[];
  /** Address of each CPU's `pcpu_hot`. */
  readonly pcpu: readonly bigint[];
  readonly sched: Scheduler;
  readonly image: KernelImage;
  /** Exception table: faulting instruction → fixup. */
  readonly exTable = new Map<bigint, bigint>();
  readonly quantum: number;
  /** Kernel release, from the image's `linux_banner` (`uname -r`). */
  readonly release: string;
  /** Everything written to `/dev/console` (the workloads' stdout and stderr), in order. */
  readonly console: ConsoleWrite[] = [];
  readonly guest: GuestCaller;
  readonly modules: ModuleLoader;
  /** Top of each CPU's stack for host-to-guest calls made outside any task (boot, workload creation). */
  readonly hostStackTop: readonly bigint[];
  panicked: string | undefined;
  /**
   * What an in-kernel subsystem (kprobes) may use of the kernel: the die chain, the exception table,
   * text patching and allocators, host gates, guest calls, per-CPU areas, printk, round boundaries
   * and snapshot providers, each behind a narrow interface.
   */
  readonly kernel: KernelApi;
  /**
   * When set, CPUs run one instruction at a time and this is called with the address of each one
   * before it runs: an oracle for tests (how often did an instruction execute?), slow by design.
   */
  stepHook: ((cpu: number, rip: bigint) => void) | undefined;

  readonly traps$: Observable<TrapEvent>;
  readonly dies$: Observable<DieEvent>;
  readonly tasks$: Observable<TaskEvent>;
  readonly printk$: Observable<PrintkEvent>;
  readonly machine$: Observable<MachineEvent>;
  readonly console$: Observable<ConsoleWrite>;
  readonly events$: Observable<KernelEvent>;

  private readonly dieSubject = new Subject<DieEvent>();
  private readonly taskSubject = new Subject<TaskEvent>();
  private readonly printkSubject = new Subject<PrintkEvent>();
  private readonly machineSubject = new Subject<MachineEvent>();
  private readonly consoleSubject = new Subject<ConsoleWrite>();
  private readonly traps: TrapRouter;
  private readonly programs: (name: string) => Uint8Array | undefined;
  private readonly panicOnOops: boolean;
  /** Bytes of each per-CPU page in use: `struct pcpu_hot` (40) rounded up, then {@link percpuAlloc}. */
  private percpuUsed = 64;
  private readonly loop: RunLoop;
  private readonly snapshotter: MachineSnapshotter;
  /** Saves {@link console} for snapshots, sharing the writes they have in common. */
  private readonly consoleHistory = new AppendOnlyHistory(this.console);

  private constructor(options: MachineOptions) {
    const ncpus = options.cpus ?? 2;
    if (!Number.isInteger(ncpus) || ncpus < 1 || ncpus > 64) {
      throw new KernelError('EINVAL', `--cpus must be 1..64 (got ${ncpus})`);
    }
    this.quantum = options.quantum ?? 10_000;
    this.programs = options.programs ?? (() => undefined);
    this.panicOnOops = options.panicOnOops ?? false;
    this.image = parseKernelImage(options.image, options.imageName ?? 'vmlinux');
    this.memory = new KernelMemory(this.space);
    this.hostCalls = new HostCalls(this.space, this.kallsyms, () =>
      this.memory.moduleAlloc(PAGE_SIZE, PageFlags.Present | PageFlags.Gate),
    );
    this.loadImage();
    const banner = this.kallsyms.lookupName('linux_banner');
    const text = banner ? this.space.readCString(banner.address, 256) : '';
    this.release = /Linux version (\S+)/.exec(text)?.[1] ?? 'unknown';
    const cpus: Cpu[] = [];
    const pcpu: bigint[] = [];
    for (let c = 0; c < ncpus; c++) {
      const area = KernelLayout.PERCPU_BASE + BigInt(c * PAGE_SIZE);
      this.space.map(area, PAGE_SIZE, KERNEL_DATA);
      this.space.writeU64(area + BigInt(PcpuHot.self), area);
      this.space.writeU32(area + BigInt(PcpuHot.cpuNumber), c);
      this.space.writeU64(area + BigInt(PcpuHot.currentTask), this.image.symbols.init_task);
      const cpu = new Cpu({ addressSpace: this.space, id: c });
      cpu.writeMsr(Msr.EFER, 0xd01n);
      cpu.writeMsr(Msr.STAR, 0x0023001000000000n);
      cpu.writeMsr(Msr.LSTAR, this.image.symbols.entry_SYSCALL_64);
      cpu.writeMsr(Msr.FMASK, 0x40700n);
      cpu.cs = Selector.KERNEL_CS;
      cpu.ss = Selector.KERNEL_DS;
      cpu.gsBase = area;
      cpu.rflags = 0x2;
      cpus.push(cpu);
      pcpu.push(area);
    }
    this.cpus = cpus;
    this.pcpu = pcpu;
    this.hostStackTop = cpus.map(
      () => this.memory.vmallocMap(KernelLayout.THREAD_SIZE) + BigInt(KernelLayout.THREAD_SIZE),
    );
    this.regs = cpus.map((c) => new PtRegs(c));
    this.gateContexts = this.regs.map((regs, cpu) => ({
      cpu,
      regs,
      arg: (n: number) => regs.argument(n, cpus[cpu].addressSpace),
    }));
    for (const c of cpus) c.gateHook = (cpu, gate) => this.inlineGate(cpu, gate);
    this.sched = new Scheduler(this);
    this.guest = new GuestCaller(this, options.guestCallLimit ?? 50_000_000);
    this.traps = new TrapRouter(this);
    this.loop = new RunLoop(this, this.traps);
    this.modules = new ModuleLoader(this);
    this.traps$ = merge(...cpus.map((c) => c.traps$));
    this.dies$ = this.dieSubject.asObservable();
    this.tasks$ = this.taskSubject.asObservable();
    this.printk$ = this.printkSubject.asObservable();
    this.machine$ = this.machineSubject.asObservable();
    this.console$ = this.consoleSubject.asObservable();
    this.events$ = merge(this.traps$, this.dies$, this.tasks$, this.printk$, this.machine$);
    bindKernelServices(this);
    this.kernel = Object.freeze({
      dieChain: this.dieChain,
      exTable: this.exTable,
      memory: this.memory,
      hostCalls: this.hostCalls,
      guest: this.guest,
      percpu: Object.freeze({ bases: this.pcpu, alloc: (size: number) => this.percpuAlloc(size) }),
      hostStackTop: this.hostStackTop,
      image: this.image,
      log: (cpu: number, level: number, text: string) => this.log(cpu, level, text),
      oops: (cpu: number, reason: string) => this.oops(cpu, reason),
      onRoundBoundary: (fn: () => void) => this.onRoundBoundary(fn),
      registerSnapshotProvider: (name: string, p: SnapshotProvider) => this.registerSnapshotProvider(name, p),
    });
    this.snapshotter = this.createSnapshotter();
    this.memory.onTextPoke((p) =>
      this.emitMachine({
        type: 'text:poked',
        at: this.clock(0),
        cpu: 0,
        address: p.address,
        before: Buffer.from(p.before).toString('hex'),
        after: Buffer.from(p.after).toString('hex'),
      }),
    );
  }

  /**
   * Loads the image, sets up every CPU (MSRs, selectors, per-CPU areas) and runs `start_kernel` on
   * CPU 0. Throws a {@link KernelError} with a clear message for an image that is not an int3 kernel.
   */
  static boot(options: MachineOptions): Machine {
    const m = new Machine(options);
    try {
      m.guest.call(0, m.image.symbols.start_kernel, []);
    } catch (e) {
      if (!(e instanceof KernelError)) throw e;
      const tail = m.printk
        .records()
        .slice(-24)
        .map((r) => `  ${r.text}`)
        .join('\n');
      throw new KernelError('PANIC', `boot failed: ${e.message}${tail ? `\n${tail}` : ''}`);
    }
    if (m.panicked) throw new KernelError('PANIC', `boot failed: ${m.panicked}`);
    m.emitMachine({ type: 'machine:booted', at: m.clock(0), cpu: 0, cpus: m.cpus.length, image: m.image.elf.name });
    return m;
  }

  /** Virtual time of `cpu` in nanoseconds: its virtual instructions plus the time it spent idle. */
  clock(cpu: number): number {
    return this.cpus[cpu].virtualRetired * NS_PER_INSTRUCTION + this.loop.offsetNs[cpu];
  }

  /**
   * Starts a workload: `argv[0]` names a program of the image package (`cat`, `fork`, …). The task is
   * created in the guest (`int3_task_create`), its ELF is loaded into a fresh address space, and it
   * becomes runnable in user mode at its entry point.
   *
   * @see image/ABI.md §6.1
   */
  spawn(argv: readonly string[]): Task {
    return spawnWorkload(this, argv, this.programs);
  }

  /** Creates the host side of a task whose guest `task_struct` is at `guestTask`. */
  newTask(guestTask: bigint, comm: string, parent: Task | undefined, mm: AddressSpace, cpu: number): Task {
    const pid = this.space.readU32(guestTask + 8n) | 0;
    const pages = KernelLayout.THREAD_SIZE / PAGE_SIZE;
    // One unmapped guard page below the stack catches overflows as a #PF.
    const base = this.memory.vmalloc.alloc(pages + 1);
    if (base === undefined) throw new KernelError('ENOMEM', 'no room for a kernel stack');
    const stack = base + BigInt(PAGE_SIZE);
    this.space.map(stack, KernelLayout.THREAD_SIZE, KERNEL_DATA);
    return new Task(pid, pid, comm, parent, mm, stack, guestTask, cpu, false);
  }

  /** Releases a task's kernel stack (its address space goes with the task object). */
  freeTaskStack(task: Task): void {
    this.space.unmap(task.kernelStack, KernelLayout.THREAD_SIZE);
    this.memory.vmalloc.release(task.kernelStack - BigInt(PAGE_SIZE));
  }

  /**
   * Runs the machine round after round until `until()` holds, nothing is left to run, the deadline
   * (virtual ns on CPU 0) passes, or the machine panics.
   */
  run(options: RunOptions = {}): RunOutcome {
    return this.loop.run(options);
  }

  /**
   * One round: every CPU in order runs one quantum (the rest of the round, when a stop interrupted
   * it). Returns true when `stopAfter` stopped it before its end.
   */
  runRound(stopAfter?: () => boolean): boolean {
    return this.loop.runRound(stopAfter);
  }

  /**
   * Calls `fn` at every round boundary, right after a round completes (every CPU ran its slice), in
   * registration order and before {@link run} checks `onRound`/`until`. A round a stop interrupted
   * reaches its boundary when a later `run`/`runRound` finishes it. Hooks are host closures: they are
   * not part of snapshots, so what they change must be saved by a snapshot provider. Work that must
   * happen "once every CPU has run since" (a cross-CPU sync, as `text_poke_sync()` waits for) belongs
   * here. Returns the unregister handle.
   * @see kernel/workqueue.c (delayed work run between the CPUs' slices, not inside one)
   */
  onRoundBoundary(fn: () => void): () => void {
    return this.loop.onRoundBoundary(fn);
  }

  /**
   * Takes an in-memory snapshot of everything that decides what happens next: memory, CPUs, clocks,
   * scheduler, allocators, printk, console, modules, kallsyms, gates, and what registered providers
   * save. Taken between rounds or after a stop, never while the machine runs.
   *
   * @example
   * const s = m.snapshot();
   * m.run({ deadlineNs: 2_000_000 });
   * m.restore(s); // the same machine object, back where it was
   */
  snapshot(): MachineSnapshot {
    this.mustBeQuiet('snapshot');
    return this.snapshotter.capture();
  }

  /**
   * Puts this machine back into the state of `s` (a snapshot it took): the same Machine, Task and
   * address-space objects, with their saved contents. Host closures (gate handlers, notifiers,
   * subscribers) stay as they are; events are not replayed.
   */
  restore(s: MachineSnapshot): void {
    this.mustBeQuiet('restore');
    this.snapshotter.restore(s);
  }

  /**
   * Adds state of another package to every later snapshot: `save()` is called by {@link snapshot},
   * `restore(state)` by {@link restore} (with undefined for a snapshot taken before registration).
   * Returns the unregister handle.
   */
  registerSnapshotProvider(name: string, provider: SnapshotProvider): () => void {
    return this.snapshotter.register(name, provider);
  }

  /**
   * Reserves `size` bytes in every CPU's per-CPU page (after `struct pcpu_hot`) and returns their
   * offset from the per-CPU base: guest code reaches them as `%gs:offset` in kernel mode.
   */
  percpuAlloc(size: number): number {
    const offset = (this.percpuUsed + 7) & ~7;
    if (offset + size > PAGE_SIZE) throw new KernelError('ENOMEM', 'per-CPU area exhausted');
    this.percpuUsed = offset + size;
    return offset;
  }

  /**
   * Completes a gate call: rax = result (unless undefined), then `ret`; after {@link HOST_CALL_JUMPED}
   * nothing (the service has put the CPU where it goes on).
   */
  completeGate(cpu: number, result: bigint | number | undefined | typeof HOST_CALL_JUMPED): void {
    if (typeof result === 'object') return;
    const c = this.cpus[cpu];
    if (result !== undefined) c.setReg(Reg.RAX, BigInt.asUintN(64, BigInt(result)));
    const rsp = c.getReg(Reg.RSP);
    c.rip = c.addressSpace.readU64(rsp);
    c.setReg(Reg.RSP, rsp + 8n);
  }

  /** Runs a host service for `cpu` with that CPU's reused call context. */
  callGate(cpu: number, gate: HostGate): HostCallResult {
    return gate.handler(this.gateContexts[cpu]);
  }

  /**
   * The CPUs' gate hook: runs an `inline` gate in place, inside the CPU's run loop (its handler moves
   * rip); false for every other gate, which exits the loop as usual.
   */
  private inlineGate(c: Cpu, insn: Insn): boolean {
    // The binding is looked up once per decoded gate and cached on it (HostCalls drops the decoded
    // gate when it binds or unbinds there).
    let cached = insn.gate as HostGate | typeof NOT_INLINE | null;
    if (cached === null) {
      cached = this.hostCalls.inlineHalves(c.ripLo, c.ripHi) ?? NOT_INLINE;
      insn.gate = cached;
    }
    if (cached === NOT_INLINE) return false;
    const gate = cached as HostGate;
    if (gate.handler(this.gateContexts[c.id]) !== HOST_CALL_JUMPED) {
      throw new KernelError(
        'EINVAL',
        `inline host gate ${gate.name} did not move rip (it must answer HOST_CALL_JUMPED)`,
      );
    }
    return true;
  }

  /** Handles the gate exit of a running task (the CPU's rip is the gate); false when the task left the CPU. */
  handleGate(cpu: number): boolean {
    const c = this.cpus[cpu];
    const gate = this.hostCalls.lookupHalves(c.ripLo, c.ripHi);
    if (!gate) {
      this.traps.oops(cpu, {
        vector: ExceptionVector.GeneralProtection,
        errorCode: 0,
        reason: `call to an unbound host gate at 0x${c.rip.toString(16)}`,
      });
      return this.sched.current[cpu] !== undefined;
    }
    const result = this.callGate(cpu, gate);
    if (typeof result === 'object' && !('jumped' in result)) {
      if ('exit' in result) return false;
      if ('yield' in result) {
        this.completeGate(cpu, 0n);
        this.sched.switchOut(cpu);
        return false;
      }
      this.completeGate(cpu, undefined);
      this.sched.block(cpu, result.block);
      return false;
    }
    this.completeGate(cpu, result);
    return true;
  }

  /** Routes an exception raised inside a host-to-guest call; false when it oopsed. */
  trapsInNestedCall(cpu: number, r: Extract<RunResult, { reason: 'exception' }>): boolean {
    return this.traps.handle(cpu, r, true);
  }

  /** Kills the current task of `cpu` with `signo` by running the guest's `do_exit` on its stack. */
  killCurrent(cpu: number, signo: number): void {
    const task = this.sched.current[cpu];
    if (!task) return;
    const c = this.cpus[cpu];
    if (c.cpl === 3) {
      // Enter the kernel as the syscall path would: swap GS so GS_BASE is the per-CPU area.
      c.kernelGsBase = c.gsBase;
      c.gsBase = this.pcpu[cpu];
    }
    c.cs = Selector.KERNEL_CS;
    c.ss = Selector.KERNEL_DS;
    c.rflags = 0x2;
    const top = task.kernelStack + BigInt(KernelLayout.THREAD_SIZE) - 8n;
    this.space.writeU64(top, 0n);
    c.setReg(Reg.RSP, top);
    c.setReg(Reg.RBP, 0n);
    c.setReg(Reg.RDI, BigInt(signo));
    c.rip = this.image.symbols.do_exit;
    task.killedBy = signo;
    this.emitTask({ type: 'task:signalled', at: this.clock(cpu), cpu, pid: task.pid, comm: task.comm, signo });
  }

  /**
   * A `BUG()` in host code on behalf of the guest (kprobes' consistency checks): reports an oops for
   * the current task of `cpu` — `invalid opcode`, as the `ud2` of BUG() would — and kills it.
   */
  oops(cpu: number, reason: string): void {
    this.traps.oops(cpu, { vector: ExceptionVector.InvalidOpcode, errorCode: 0, reason }, this.guest.active);
  }

  /** Stops the machine for good. */
  panic(cpu: number, message: string): void {
    if (this.panicked) return;
    this.panicked = message;
    this.log(cpu, 0, `Kernel panic - not syncing: ${message}`);
    this.emitMachine({ type: 'machine:panicked', at: this.clock(cpu), cpu, reason: message });
  }

  /** Whether an oops should panic the machine. */
  get panicsOnOops(): boolean {
    return this.panicOnOops;
  }

  /** Logs a kernel message (printk) from the host side. */
  log(cpu: number, level: number, text: string): void {
    for (const rec of this.printk.store(`\x01${level}${text}\n`, this.clock(cpu), cpu)) {
      if (this.printkSubject.observed) {
        this.printkSubject.next(
          Object.freeze({ type: 'printk', at: rec.timestampNs, cpu, level: rec.level, text: rec.text }),
        );
      }
    }
  }

  /** Appends to `/dev/console` on behalf of the task running on `cpu`. */
  writeConsole(cpu: number, bytes: Uint8Array): void {
    const write: ConsoleWrite = Object.freeze({
      at: this.clock(cpu),
      cpu,
      pid: this.sched.current[cpu]?.pid ?? 0,
      text: decoder.decode(bytes),
    });
    this.console.push(write);
    if (this.consoleSubject.observed) this.consoleSubject.next(write);
  }

  /** True when `dies$` (or `events$`) has subscribers. */
  get diesObserved(): boolean {
    return this.dieSubject.observed;
  }

  /** Publishes a die notification (only when someone listens). */
  emitDie(cpu: number, val: number, trapnr: number, rip: bigint, stopped: boolean): void {
    if (!this.dieSubject.observed) return;
    this.dieSubject.next(
      Object.freeze({
        type: 'die:notified',
        at: this.clock(cpu),
        cpu,
        val: DIE_NAMES[val] ?? String(val),
        trapnr,
        rip,
        stopped,
      }),
    );
  }

  /** Publishes a task event. */
  emitTask(e: TaskEvent): void {
    if (this.taskSubject.observed) this.taskSubject.next(Object.freeze(e));
  }

  /** Publishes a machine event. */
  emitMachine(e: MachineEvent): void {
    if (this.machineSubject.observed) this.machineSubject.next(Object.freeze(e));
  }

  private mustBeQuiet(what: string): void {
    if (this.loop.inRound || this.guest.active) {
      throw new KernelError('EBUSY', `${what}() works between rounds, not while the machine runs`);
    }
  }

  /** The snapshotter, with the host kernel's parts in restore order. */
  private createSnapshotter(): MachineSnapshotter {
    const part = <S>(o: { save(): S; restore(s: S): void }): SnapshotProvider => ({
      save: () => o.save(),
      restore: (s) => o.restore(s as S),
    });
    const parts = new Map<string, SnapshotProvider>([
      ['machine', { save: () => this.saveOwn(), restore: (s) => this.restoreOwn(s as MachineOwnState) }],
      ['memory', part(this.memory)],
      ['kallsyms', part(this.kallsyms)],
      ['hostCalls', part(this.hostCalls)],
      ['modules', part(this.modules)],
      ['printk', part(this.printk)],
      ['traps', part(this.traps)],
      ['sched', part<SchedulerState>(this.sched)],
    ]);
    const source = {
      space: this.space,
      cpus: this.cpus,
      taskSpaces: () => [...this.sched.tasks.values()].map((t) => t.mm),
    };
    return new MachineSnapshotter(this, source, parts);
  }

  private saveOwn(): MachineOwnState {
    return Object.freeze({
      loop: this.loop.save(),
      percpuUsed: this.percpuUsed,
      panicked: this.panicked,
      console: this.consoleHistory.save(),
      exTable: Object.freeze([...this.exTable]),
    });
  }

  private restoreOwn(s: MachineOwnState): void {
    this.loop.restore(s.loop);
    this.percpuUsed = s.percpuUsed;
    this.panicked = s.panicked;
    this.consoleHistory.restore(s.console);
    this.exTable.clear();
    for (const [at, fixup] of s.exTable) this.exTable.set(at, fixup);
  }

  /** One instruction under the step hook. */
  stepOnce(cpu: number): RunResult {
    const c = this.cpus[cpu];
    this.stepHook?.(cpu, c.rip);
    return c.step();
  }

  private loadImage(): void {
    const img = this.image;
    loadElf(img.elf, this.space);
    const start = img.symbols.__hostcall_start;
    const size = Number(img.symbols.__hostcall_end - start);
    if (size > 0) this.space.protect(start, size, PageFlags.Present | PageFlags.Gate);
    this.kallsyms.addRegion(undefined, img.ksyms);
    for (let a = img.symbols.__start___ex_table; a < img.symbols.__stop___ex_table; a += 16n) {
      this.exTable.set(this.space.readU64(a), this.space.readU64(a + 8n));
    }
  }
}
