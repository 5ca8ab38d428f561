import type { Machine, PtRegName } from '@int3/kernel';
import type { Kprobes } from '@int3/kprobes';
import type { TracerClock } from '../plugins/tracer-clock.js';
import type { TracerContext } from '../plugins/tracer-context.js';
import type { BpftraceAttachHost, CurrentTask } from './bpftrace-runtime.js';
import { matchFunctions } from './match-functions.js';

const PAGE_MASK = 0xfffn;

/** One mutable task view per CPU, refreshed at each read so a hit allocates nothing. */
interface TaskView {
  pid: number;
  tid: number;
  comm: string;
  task: bigint;
}

/**
 * The {@link BpftraceAttachHost} of a tracer context: registers from the CPU's `pt_regs`, memory from
 * the pages of the CPU's current address space, the task from the scheduler, symbols from kallsyms,
 * time from the tracer clock, kprobes as the context gives them. The one place the bpftrace front
 * end meets the machine.
 *
 * @see kernel/trace/bpf_trace.c (the helpers a BPF program calls)
 */
export class MachineBpftraceRuntime implements BpftraceAttachHost {
  readonly ncpus: number;
  readonly kprobes: Kprobes;
  readonly #tasks: TaskView[];
  private readonly m: Machine;
  private readonly clock: TracerClock;

  constructor(ctx: TracerContext) {
    this.m = ctx.machine;
    this.clock = ctx.clock;
    this.kprobes = ctx.kprobes;
    this.ncpus = this.m.cpus.length;
    this.#tasks = this.m.cpus.map(() => ({ pid: 0, tid: 0, comm: '', task: 0n }));
  }

  matchFunctions(func: string, module?: string): string[] {
    return matchFunctions(this.m.kallsyms, func, module);
  }

  onRoundBoundary(fn: () => void): () => void {
    return this.m.kernel.onRoundBoundary(fn);
  }

  reg(cpu: number, name: PtRegName): bigint {
    return this.m.regs[cpu].get(name);
  }

  readMemory(cpu: number, address: bigint, length: number, out: Uint8Array): boolean {
    const space = this.m.cpus[cpu].addressSpace;
    let at = BigInt.asUintN(64, address);
    let done = 0;
    while (done < length) {
      const page = space.lookup(Number(at & 0xffffffffn), Number(at >> 32n) | 0);
      if (page === undefined) return false;
      const off = Number(at & PAGE_MASK);
      const n = Math.min(4096 - off, length - done);
      out.set(page.data.subarray(off, off + n), done);
      done += n;
      at = BigInt.asUintN(64, at + BigInt(n));
    }
    return true;
  }

  currentTask(cpu: number): CurrentTask {
    const view = this.#tasks[cpu];
    const t = this.m.sched.current[cpu];
    if (t === undefined) {
      view.pid = 0;
      view.tid = 0;
      view.comm = `swapper/${cpu}`;
      view.task = 0n;
      return view;
    }
    view.pid = t.tgid;
    view.tid = t.pid;
    view.comm = t.comm;
    view.task = t.guestTask;
    return view;
  }

  functionAt(address: bigint): { readonly name: string; readonly address: bigint } | undefined {
    const loc = this.m.kallsyms.lookup(address);
    return loc ? { name: loc.sym.name, address: loc.sym.address } : undefined;
  }

  addressOf(name: string): bigint | undefined {
    return this.m.kallsyms.lookupName(name)?.address;
  }

  now(cpu: number): number {
    return this.clock.now(cpu);
  }
}
