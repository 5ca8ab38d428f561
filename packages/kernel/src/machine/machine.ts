import {
  AddressSpace,
  Cpu,
  ExceptionVector,
  loadElf,
  Msr,
  PAGE_SIZE,
  PageFlags,
  parseElf,
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
import { PcpuHot, Scheduler } from '../sched/scheduler.js';
import { Task } from '../sched/task.js';
import { userTaskRegs } from '../sched/task-regs.js';
import { NS_PER_INSTRUCTION, TICK_NS } from '../time/virtual-time.js';
import { DieChain, DieVal } from '../traps/die-chain.js';
import { PtRegs } from '../traps/pt-regs.js';
import { TrapRouter } from '../traps/trap-router.js';
import { GuestCaller } from './guest-caller.js';
import { type HostCallResult, HostCalls } from './host-calls.js';
import { bindKernelServices } from './kernel-services.js';
import { buildUserStack } from './user-stack.js';

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

/** What {@link Machine.run} stopped on. */
export type RunOutcome =
  | { readonly reason: 'done' }
  | { readonly reason: 'idle' }
  | { readonly reason: 'time'; readonly at: number }
  | { readonly reason: 'deadlock'; readonly blocked: readonly number[] }
  | { readonly reason: 'panic'; readonly message: string };

const KERNEL_DATA = PageFlags.Present | PageFlags.Writable | PageFlags.NoExecute;
const USER_STACK_SIZE = 128 * 1024;

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
  private readonly clockOffsetNs: number[];
  private readonly nextTick: number[];
  private readonly traps: TrapRouter;
  private readonly programs: (name: string) => Uint8Array | undefined;
  private readonly panicOnOops: boolean;
  /** Bytes of each per-CPU page in use: `struct pcpu_hot` (40) rounded up, then {@link percpuAlloc}. */
  private percpuUsed = 64;

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
    this.clockOffsetNs = new Array(ncpus).fill(0);
    this.nextTick = new Array(ncpus).fill(TICK_NS);
    this.sched = new Scheduler(this);
    this.guest = new GuestCaller(this, options.guestCallLimit ?? 50_000_000);
    this.traps = new TrapRouter(this);
    this.modules = new ModuleLoader(this);
    this.traps$ = merge(...cpus.map((c) => c.traps$));
    this.dies$ = this.dieSubject.asObservable();
    this.tasks$ = this.taskSubject.asObservable();
    this.printk$ = this.printkSubject.asObservable();
    this.machine$ = this.machineSubject.asObservable();
    this.console$ = this.consoleSubject.asObservable();
    this.events$ = merge(this.traps$, this.dies$, this.tasks$, this.printk$, this.machine$);
    bindKernelServices(this);
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
    return this.cpus[cpu].virtualRetired * NS_PER_INSTRUCTION + this.clockOffsetNs[cpu];
  }

  /**
   * Starts a workload: `argv[0]` names a program of the image package (`cat`, `fork`, …). The task is
   * created in the guest (`int3_task_create`), its ELF is loaded into a fresh address space, and it
   * becomes runnable in user mode at its entry point.
   *
   * @see image/ABI.md §6.1
   */
  spawn(argv: readonly string[]): Task {
    const name = argv[0];
    const bytes = name === undefined ? undefined : this.programs(name);
    if (!bytes) throw new KernelError('ENOENT', `no such workload: ${name ?? '(none)'}`);
    const elf = parseElf(bytes, name);
    // int3_task_create takes the big kernel lock: wait until no CPU holds it.
    let spins = 0;
    while (this.space.readU32(this.image.symbols.kernel_flag) !== 0) {
      if (++spins > 100_000) throw new KernelError('RUNAWAY', 'the big kernel lock is never released');
      this.runRound();
    }
    const cpu = this.sched.runQueues.pickCpu();
    const comm = name.slice(0, 15);
    const commAddr = this.memory.heap.alloc(16);
    this.space.write(commAddr, new TextEncoder().encode(`${comm}\0`));
    const guestTask = this.guest.call(cpu, this.image.symbols.int3_task_create, [commAddr], {
      asTask: this.image.symbols.init_task,
    });
    this.memory.heap.free(commAddr);
    if (guestTask === 0n) throw new KernelError('ENOMEM', `int3_task_create(${comm}) failed`);
    const mm = new AddressSpace(this.space);
    const loaded = loadElf(elf, mm, { user: true });
    const stackTop = KernelLayout.USER_STACK_TOP;
    mm.map(
      stackTop - BigInt(USER_STACK_SIZE),
      USER_STACK_SIZE,
      PageFlags.Present | PageFlags.Writable | PageFlags.User | PageFlags.NoExecute,
    );
    const rsp = buildUserStack(mm, stackTop, argv);
    const task = this.newTask(guestTask, comm, undefined, mm, cpu);
    task.context = userTaskRegs({ rip: loaded.entry, rsp, kernelGsBase: this.pcpu[cpu] });
    this.sched.add(task);
    this.emitTask({ type: 'task:created', at: this.clock(cpu), cpu, pid: task.pid, comm, ppid: 0 });
    return task;
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
  run(options: { until?: () => boolean; deadlineNs?: number } = {}): RunOutcome {
    for (;;) {
      if (this.panicked) return { reason: 'panic', message: this.panicked };
      if (options.until?.()) return { reason: 'done' };
      if (options.deadlineNs !== undefined && this.clock(0) >= options.deadlineNs)
        return { reason: 'time', at: this.clock(0) };
      if (!this.sched.anyRunnable()) {
        const wake = this.sched.nextWakeup();
        if (wake === undefined) {
          const blocked = this.sched.blockedForever();
          return blocked.length > 0 ? { reason: 'deadlock', blocked: blocked.map((t) => t.pid) } : { reason: 'idle' };
        }
        this.fastForward(wake);
      }
      this.runRound();
    }
  }

  /** One round: every CPU in order runs one quantum. */
  runRound(): void {
    for (let c = 0; c < this.cpus.length && !this.panicked; c++) this.runSlice(c);
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

  /** Completes a gate call: rax = result (unless undefined), then `ret`. */
  completeGate(cpu: number, result: bigint | number | undefined): void {
    const c = this.cpus[cpu];
    if (result !== undefined) c.setReg(Reg.RAX, BigInt.asUintN(64, BigInt(result)));
    const rsp = c.getReg(Reg.RSP);
    c.rip = c.addressSpace.readU64(rsp);
    c.setReg(Reg.RSP, rsp + 8n);
  }

  /** Handles a gate exit of a running task; returns false when the task left the CPU. */
  handleGate(cpu: number, rip: bigint): boolean {
    const gate = this.hostCalls.lookup(rip);
    if (!gate) {
      this.traps.oops(cpu, {
        vector: ExceptionVector.GeneralProtection,
        errorCode: 0,
        reason: `call to an unbound host gate at 0x${rip.toString(16)}`,
      });
      return this.sched.current[cpu] !== undefined;
    }
    const regs = this.regs[cpu];
    const result: HostCallResult = gate.handler({
      cpu,
      regs,
      arg: (n) => regs.argument(n, this.cpus[cpu].addressSpace),
    });
    if (typeof result === 'object') {
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

  /** Handles an exception raised by a running task. */
  handleException(cpu: number, r: Extract<RunResult, { reason: 'exception' }>): void {
    this.traps.handle(cpu, r);
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
      text: new TextDecoder().decode(bytes),
    });
    this.console.push(write);
    if (this.consoleSubject.observed) this.consoleSubject.next(write);
  }

  /** Publishes a die notification (only when someone listens). */
  emitDie(cpu: number, val: number, trapnr: number, rip: bigint, stopped: boolean): void {
    if (!this.dieSubject.observed) return;
    const name = Object.entries(DieVal).find(([, v]) => v === val)?.[0] ?? String(val);
    this.dieSubject.next(
      Object.freeze({ type: 'die:notified', at: this.clock(cpu), cpu, val: `DIE_${name}`, trapnr, rip, stopped }),
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

  private runSlice(cpu: number): void {
    const c = this.cpus[cpu];
    const end = this.clock(cpu) + this.quantum * NS_PER_INSTRUCTION;
    for (;;) {
      this.sched.wakeSleepers(cpu, this.clock(cpu));
      const now = this.clock(cpu);
      if (now >= end || this.panicked) break;
      const task = this.sched.current[cpu] ?? this.sched.switchIn(cpu);
      if (!task) {
        this.clockOffsetNs[cpu] += end - now;
        break;
      }
      const r = this.stepHook ? this.stepOnce(cpu) : c.run(Math.ceil((end - now) / NS_PER_INSTRUCTION));
      switch (r.reason) {
        case 'budget':
        case 'interrupt':
          break;
        case 'gate':
          this.handleGate(cpu, r.rip);
          break;
        case 'exception':
          this.traps.handle(cpu, r);
          break;
        case 'hlt':
          this.traps.oops(cpu, {
            vector: ExceptionVector.GeneralProtection,
            errorCode: 0,
            reason: 'hlt executed by a task',
          });
          break;
      }
    }
    // The timer tick: time slices end at a tick; the switch waits until the task is in user mode.
    if (this.clock(cpu) >= this.nextTick[cpu]) {
      while (this.nextTick[cpu] <= this.clock(cpu)) this.nextTick[cpu] += TICK_NS;
      if (this.sched.runQueues.length(cpu) > 0) this.sched.needResched[cpu] = true;
    }
    if (this.sched.needResched[cpu] && this.sched.current[cpu] && c.cpl === 3) this.sched.switchOut(cpu);
  }

  /** One instruction under the step hook. */
  stepOnce(cpu: number): RunResult {
    const c = this.cpus[cpu];
    this.stepHook?.(cpu, c.rip);
    return c.step();
  }

  private fastForward(to: number): void {
    // Every CPU idles the same whole number of quanta, so they stay in lockstep.
    const q = this.quantum * NS_PER_INSTRUCTION;
    const rounds = Math.floor((to - this.clock(0)) / q);
    if (rounds <= 0) return;
    for (let c = 0; c < this.cpus.length; c++) this.clockOffsetNs[c] += rounds * q;
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
