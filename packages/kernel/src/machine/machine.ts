import { AddressSpace, type Cpu, ExceptionVector, PAGE_SIZE, PageFlags } from '@int3/cpu';
import type { Observable } from 'rxjs';
import { imageExtent, type KernelImage, parseKernelImage } from '../boot/kernel-image.js';
import { loadKernelImage } from '../boot/load-kernel-image.js';
import { setUpCpus } from '../boot/set-up-cpus.js';
import type { ConsoleLogState, ConsoleView, ConsoleWrite } from '../events/console-log.js';
import type { KernelEvent, TaskEvent } from '../events/kernel-event.js';
import { MachineEvents } from '../events/machine-events.js';
import type { MachineStreams } from '../events/machine-streams.js';
import { Kallsyms } from '../kallsyms/kallsyms.js';
import { KernelError } from '../kernel-error.js';
import { KernelLayout } from '../mm/kernel-layout.js';
import { KernelMemory } from '../mm/kernel-memory.js';
import { defineModuleApiGates } from '../modules/module-api-gates.js';
import { ModuleLoader } from '../modules/module-loader.js';
import { PrintkBuffer, type PrintkView } from '../printk/printk-buffer.js';
import { killCurrent } from '../sched/kill-current.js';
import { Scheduler, type SchedulerState, type SchedulerView } from '../sched/scheduler.js';
import type { Task } from '../sched/task.js';
import { TaskStacks } from '../sched/task-stacks.js';
import type { MachineSnapshot } from '../snapshot/machine-snapshot.js';
import { MachineSnapshotter } from '../snapshot/machine-snapshotter.js';
import type { SnapshotProvider } from '../snapshot/snapshot-provider.js';
import { DieChain } from '../traps/die-chain.js';
import { PtRegs } from '../traps/pt-regs.js';
import { TrapRouter } from '../traps/trap-router.js';
import { CpuClocks } from './cpu-clocks.js';
import { CpuStepper, type StepHook } from './cpu-stepper.js';
import { GateDispatcher } from './gate-dispatcher.js';
import { GuestCaller } from './guest-caller.js';
import { HostCalls } from './host-calls.js';
import type { KernelApi } from './kernel-api.js';
import { KernelPanic } from './kernel-panic.js';
import { bindKernelServices } from './kernel-services.js';
import { ProgramCache } from './program-cache.js';
import { RunLoop, type RunLoopState, type RunOptions, type RunOutcome } from './run-loop.js';
import { spawnWorkload } from './spawn-workload.js';

export type { ConsoleView } from '../events/console-log.js';
export type { ConsoleWrite } from '../events/machine-events.js';
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
  /** Characters of console text kept (default 1 Mi); older writes are dropped, the state hash covers all. */
  readonly consoleChars?: number;
}

/** The machine's own part of a snapshot: clocks, the round in progress, console, panic state. */
interface MachineOwnState {
  readonly loop: RunLoopState;
  readonly percpuUsed: number;
  readonly panicked: string | undefined;
  readonly console: ConsoleLogState;
  readonly exTable: readonly (readonly [bigint, bigint])[];
}

/**
 * A booted int3 machine: the guest kernel image on N CPUs, with the host kernel around it. Runs are
 * deterministic: CPUs take turns in fixed quanta of virtual instructions, and instrumentation costs no
 * virtual time, so the same inputs give the same interleaving, probed or not.
 *
 * Machine is the composition root of the host kernel: it builds each part (scheduler, trap router,
 * gate dispatcher, guest caller, run loop, module loader, kernel services) and hands it the few
 * capabilities it uses; no part holds the machine. Its own surface is what users need: boot, run,
 * spawn, modules, snapshots, event streams and read-only views; in-kernel subsystems get
 * {@link kernel}.
 *
 * @example
 * const m = Machine.boot({ image, programs });
 * const task = m.spawn(['cat', '/etc/motd']);
 * m.run({ until: () => task.exited });
 */
export class Machine {
  /** The kernel address space (each task's user space shares its kernel half). */
  readonly space = new AddressSpace();
  readonly kallsyms = new Kallsyms();
  /** The kernel log buffer (`dmesg`). */
  readonly printk: PrintkView;
  private readonly printkBuffer = new PrintkBuffer();
  readonly cpus: readonly Cpu[];
  /** Live tasks and what runs on each CPU. */
  readonly sched: SchedulerView;
  /** Kernel release, from the image's `linux_banner` (`uname -r`). */
  readonly release: string;
  /** `insmod` / `rmmod`, the loaded modules and module notifiers. */
  readonly modules: ModuleLoader;
  /**
   * What an in-kernel subsystem (kprobes) may use of the kernel: the die chain, the exception table,
   * text patching and allocators, host gates, guest calls, per-CPU areas, printk, round boundaries
   * and snapshot providers, each behind a narrow interface.
   */
  readonly kernel: KernelApi;

  /** Every kernel event (traps, die notifications, tasks, printk, milestones), frozen. */
  readonly events$: Observable<KernelEvent>;
  /** The same events one family each (`traps$`, `tasks$`, …), and the console's writes. */
  readonly streams: MachineStreams;

  private readonly image: KernelImage;
  private readonly memory: KernelMemory;
  private readonly dieChain = new DieChain<PtRegs>();
  private readonly exTable = new Map<bigint, bigint>();
  private readonly hostCalls: HostCalls;
  private readonly clocks: CpuClocks;
  private readonly events: MachineEvents;
  private readonly panicState: KernelPanic;
  private readonly scheduler: Scheduler;
  private readonly traps: TrapRouter;
  private readonly guest: GuestCaller;
  private readonly loop: RunLoop;
  private readonly snapshotter: MachineSnapshotter;
  private readonly spawnHost: Parameters<typeof spawnWorkload>[0];
  /** Bytes of each per-CPU page in use: `struct pcpu_hot` (40) rounded up, then per-CPU allocations. */
  private percpuUsed = 64;

  private constructor(options: MachineOptions) {
    const ncpus = options.cpus ?? 2;
    if (!Number.isInteger(ncpus) || ncpus < 1 || ncpus > 64) {
      throw new KernelError('EINVAL', `--cpus must be 1..64 (got ${ncpus})`);
    }
    const quantum = options.quantum ?? 10_000;
    const space = this.space;
    const kallsyms = this.kallsyms;
    const image = parseKernelImage(options.image, options.imageName ?? 'vmlinux');
    this.image = image;
    const memory = new KernelMemory(space);
    this.memory = memory;
    const hostCalls = new HostCalls(space, kallsyms, () =>
      memory.moduleAlloc(PAGE_SIZE, PageFlags.Present | PageFlags.Gate),
    );
    this.hostCalls = hostCalls;
    loadKernelImage(image, space, kallsyms, this.exTable);
    const banner = kallsyms.lookupName('linux_banner');
    const text = banner ? space.readCString(banner.address, 256) : '';
    this.release = /Linux version (\S+)/.exec(text)?.[1] ?? 'unknown';
    const { cpus, pcpu } = setUpCpus(space, ncpus, image.symbols);
    this.cpus = cpus;
    const hostStackTop = cpus.map(() => memory.vmallocMap(KernelLayout.THREAD_SIZE) + BigInt(KernelLayout.THREAD_SIZE));
    const regs = cpus.map((c) => new PtRegs(c));

    // Step 1: the parts everything else reports through: clocks, events, panic, the CPU runner.
    const clocks = new CpuClocks(cpus);
    this.clocks = clocks;
    this.printk = this.printkBuffer;
    const events = new MachineEvents(cpus, clocks, this.printkBuffer, options.consoleChars);
    this.events = events;
    const panic = new KernelPanic(events, clocks, options.panicOnOops ?? false);
    this.panicState = panic;
    const stepper = new CpuStepper(cpus, (address) => {
      for (const s of new Set([
        space,
        ...cpus.map((c) => c.addressSpace),
        ...[...this.scheduler.tasks.values()].map((t) => t.mm),
      ])) {
        if (s.isMapped(address)) s.dropCode(address, 1);
      }
    });

    // Step 2: tasks and traps.
    const sched = new Scheduler({ cpus, pcpu, space });
    this.scheduler = sched;
    this.sched = sched;
    const stacks = new TaskStacks(space, memory.vmalloc);
    const killHost = {
      cpus,
      pcpu,
      space,
      current: sched.current,
      doExit: image.symbols.do_exit,
      clock: clocks,
      emitTask: (e: TaskEvent) => events.emitTask(e),
    };
    const traps = new TrapRouter({
      cpus,
      regs,
      dieChain: this.dieChain,
      exTable: this.exTable,
      current: sched.current,
      events,
      clock: clocks,
      oopsReport: { kallsyms, release: this.release },
      panic,
      killCurrent: (cpu, signo) => killCurrent(killHost, cpu, signo),
    });
    this.traps = traps;

    // Step 3: gates, host-to-guest calls, the run loop.
    const gates = new GateDispatcher({
      cpus,
      regs,
      hostCalls,
      sched,
      oops: (cpu, info) => traps.oops(cpu, info),
    });
    const guest = new GuestCaller(
      {
        cpus,
        pcpu,
        space,
        hostStackTop,
        current: sched.current,
        runner: stepper,
        hostCalls,
        gates,
        trapInCall: (cpu, r) => traps.handle(cpu, r, true),
        traps,
        panic,
        kallsyms,
        runUntil: (cpu, untilNs) => this.loop.runUntilClock(cpu, untilNs),
      },
      options.guestCallLimit ?? 50_000_000,
    );
    this.guest = guest;
    this.loop = new RunLoop({ cpus, quantum, clocks, runner: stepper, sched, gates, traps, panic });

    // Step 4: modules, the kernel's host services, spawning, what subsystems get.
    const apiHost = {
      kallsyms,
      hostCalls,
      clock: clocks,
      space,
      cpus,
      current: sched.current,
      events,
      release: this.release,
    };
    this.modules = new ModuleLoader({
      space,
      memory,
      kallsyms,
      guest,
      initTask: image.symbols.init_task,
      kernelExtent: imageExtent(image.elf),
      clock: clocks,
      events,
      defineApiGates: () => defineModuleApiGates(apiHost),
    });
    bindKernelServices({
      image,
      space,
      cpus,
      pcpu,
      heap: memory.heap,
      hostCalls,
      sched,
      stacks,
      clock: clocks,
      events,
      panic,
    });
    this.spawnHost = {
      programs: options.programs ?? (() => undefined),
      cache: new ProgramCache(space),
      image,
      space,
      pcpu,
      heap: memory.heap,
      guest,
      sched,
      stacks,
      runRound: () => {
        this.loop.runRound();
      },
      clock: clocks,
      events,
    };
    this.kernel = Object.freeze({
      dieChain: this.dieChain,
      exTable: this.exTable,
      memory,
      hostCalls,
      guest,
      percpu: Object.freeze({ bases: pcpu, alloc: (size: number) => this.percpuAlloc(size) }),
      hostStackTop,
      image,
      log: (cpu: number, level: number, text: string) => events.log(cpu, level, text),
      oops: (cpu: number, reason: string) =>
        traps.oops(cpu, { vector: ExceptionVector.InvalidOpcode, errorCode: 0, reason }, guest.active),
      onRoundBoundary: (fn: () => void, idle?: () => boolean) => this.loop.onRoundBoundary(fn, idle),
      registerSnapshotProvider: (name: string, p: SnapshotProvider) => this.snapshotter.register(name, p),
      get stepHook() {
        return stepper.hook;
      },
      set stepHook(hook: StepHook | undefined) {
        stepper.hook = hook;
      },
      setDebugStops: (addresses: readonly bigint[], hook: StepHook | undefined) => stepper.setStops(addresses, hook),
    });
    this.events$ = events.events$;
    this.streams = Object.freeze({
      traps$: events.traps$,
      dies$: events.dies$,
      tasks$: events.tasks$,
      printk$: events.printk$,
      machine$: events.machine$,
      console$: events.console$,
    });
    this.snapshotter = this.createSnapshotter();
    memory.onTextPoke((p) =>
      events.emitMachine({
        type: 'text:poked',
        at: clocks.clock(0),
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
    m.events.emitMachine({
      type: 'machine:booted',
      at: m.clock(0),
      cpu: 0,
      cpus: m.cpus.length,
      image: m.image.elf.name,
    });
    return m;
  }

  /** Virtual time of `cpu` in nanoseconds: its virtual instructions plus the time it spent idle. */
  clock(cpu: number): number {
    return this.clocks.clock(cpu);
  }

  /** The panic message, once the machine panicked. */
  get panicked(): string | undefined {
    return this.panicState.message;
  }

  /**
   * What was written to `/dev/console` (the workloads' stdout and stderr), in order: the latest writes,
   * about {@link MachineOptions.consoleChars} characters (a copy; older ones are dropped).
   */
  get console(): readonly ConsoleWrite[] {
    return this.events.console.writes;
  }

  /**
   * The console log: the writes kept, how many since boot (`total`, dropped ones included), those after
   * the first `n` (`since(n)`), and the SHA-256 of every write so far (`digest()`, the state hash's part).
   */
  get consoleLog(): ConsoleView {
    return this.events.console;
  }

  /**
   * Starts a workload: `argv[0]` names a program of the image package (`cat`, `fork`, …). The task is
   * created in the guest (`int3_task_create`), its ELF is loaded into a fresh address space, and it
   * becomes runnable in user mode at its entry point.
   *
   * @see image/ABI.md §6.1
   */
  spawn(argv: readonly string[]): Task {
    return spawnWorkload(this.spawnHost, argv);
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
   * it). Returns true when `stopAfter` stopped it before its end. Hooks registered with
   * `kernel.onRoundBoundary` run when a round completes.
   */
  runRound(stopAfter?: () => boolean): boolean {
    return this.loop.runRound(stopAfter);
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
   * Reserves `size` bytes in every CPU's per-CPU page (after `struct pcpu_hot`) and returns their
   * offset from the per-CPU base: guest code reaches them as `%gs:offset` in kernel mode.
   */
  private percpuAlloc(size: number): number {
    const offset = (this.percpuUsed + 7) & ~7;
    if (offset + size > PAGE_SIZE) throw new KernelError('ENOMEM', 'per-CPU area exhausted');
    this.percpuUsed = offset + size;
    return offset;
  }

  private mustBeQuiet(what: string): void {
    if (this.loop.inRound || this.guest.active || this.guest.sleeping) {
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
      ['printk', part(this.printkBuffer)],
      ['traps', part(this.traps)],
      ['sched', part<SchedulerState>(this.scheduler)],
    ]);
    const source = {
      space: this.space,
      cpus: this.cpus,
      taskSpaces: () => [...this.scheduler.tasks.values()].map((t) => t.mm),
    };
    return new MachineSnapshotter(this, source, parts);
  }

  private saveOwn(): MachineOwnState {
    return Object.freeze({
      loop: this.loop.save(),
      percpuUsed: this.percpuUsed,
      panicked: this.panicState.message,
      console: this.events.console.save(),
      exTable: Object.freeze([...this.exTable]),
    });
  }

  private restoreOwn(s: MachineOwnState): void {
    this.loop.restore(s.loop);
    this.percpuUsed = s.percpuUsed;
    this.panicState.message = s.panicked;
    this.events.console.restore(s.console);
    this.exTable.clear();
    for (const [at, fixup] of s.exTable) this.exTable.set(at, fixup);
  }
}
