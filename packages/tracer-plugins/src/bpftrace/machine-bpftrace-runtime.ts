import type { PtRegName, PtRegs } from '@int3/kernel';
import type { TracerContext } from '../plugins/tracer-context.js';
import type { TracerKprobes } from '../view/tracer-kprobes.js';
import type { BpftraceAttachHost, CurrentTask } from './bpftrace-runtime.js';

/** One mutable task view per CPU, refreshed at each read so a hit allocates nothing. */
interface TaskView {
  pid: number;
  tid: number;
  comm: string;
  task: bigint;
}

/**
 * The {@link BpftraceAttachHost} of a tracer context: registers of the hit (or, between rounds, the
 * CPU's interrupted ones), memory, the current task, symbols and time through the context's view,
 * kprobes as the context gives them. The one place the bpftrace front end meets the tracer API.
 *
 * @see kernel/trace/bpf_trace.c (the helpers a BPF program calls)
 */
export class MachineBpftraceRuntime implements BpftraceAttachHost {
  readonly ncpus: number;
  readonly kprobes: TracerKprobes;
  readonly #tasks: TaskView[];
  /** The trap frame of the hit running on each CPU. */
  readonly #regs: PtRegs[];

  constructor(private readonly ctx: TracerContext) {
    this.ncpus = ctx.nrCpus;
    this.kprobes = ctx.kprobes;
    this.#tasks = Array.from({ length: this.ncpus }, () => ({ pid: 0, tid: 0, comm: '', task: 0n }));
    this.#regs = Array.from({ length: this.ncpus }, (_x, cpu) => ctx.regs.irqRegs(cpu));
  }

  /** Aims the runtime at a probe hit's registers; returns the CPU it runs on. */
  enter(regs: PtRegs): number {
    const cpu = this.ctx.regs.smpProcessorId(regs);
    this.#regs[cpu] = regs;
    return cpu;
  }

  /** Aims the runtime at `cpu`'s interrupted registers (a timer's probe between rounds). */
  enterIrq(cpu: number): void {
    this.#regs[cpu] = this.ctx.regs.irqRegs(cpu);
  }

  reg(cpu: number, name: PtRegName): bigint {
    return this.ctx.regs.get(this.#regs[cpu], name);
  }

  readMemory(cpu: number, address: bigint, length: number, out: Uint8Array): boolean {
    const mem = this.ctx.memory;
    const a = BigInt.asUintN(64, address);
    switch (length) {
      case 1: {
        const v = mem.readU8(cpu, a);
        if (v === undefined) return false;
        out[0] = v;
        return true;
      }
      case 8: {
        const v = mem.readU64(cpu, a);
        if (v === undefined) return false;
        for (let i = 0; i < 8; i++) out[i] = Number((v >> BigInt(8 * i)) & 0xffn);
        return true;
      }
      default: {
        const bytes = mem.read(cpu, a, length);
        if (bytes === undefined) return false;
        out.set(bytes);
        return true;
      }
    }
  }

  readString(cpu: number, address: bigint, max: number): string | undefined {
    return this.ctx.memory.readString(cpu, BigInt.asUintN(64, address), max);
  }

  currentTask(cpu: number): CurrentTask {
    const view = this.#tasks[cpu];
    const t = this.ctx.tasks.current(cpu);
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
    const loc = this.ctx.symbols.lookup(address);
    return loc ? { name: loc.sym.name, address: loc.sym.address } : undefined;
  }

  addressOf(name: string): bigint | undefined {
    return this.ctx.symbols.lookupName(name);
  }

  matchFunctions(func: string, module?: string): string[] {
    const names = this.ctx.symbols.functions(func);
    if (module === undefined) return names;
    return names.filter((n) => {
      const at = this.ctx.symbols.lookupName(n);
      return at !== undefined && this.ctx.symbols.lookup(at)?.sym.module === module;
    });
  }

  onRoundBoundary(fn: () => void): () => void {
    return this.ctx.timers.onRoundBoundary(fn);
  }

  now(cpu: number): number {
    return this.ctx.clock.now(cpu);
  }
}
