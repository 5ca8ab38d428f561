import { type PtRegs, SYSV_ARG_REGS } from '@int3/kernel';
import { type Kprobe, KprobeFlag, type Kretprobe, type KretprobeInstance } from '@int3/kprobes';
import type { EventFilter } from '../filter/event-filter.js';
import type { ProbeDefinition } from '../probe-events/probe-definition.js';
import { type ProbeHit, ProbeRecorder } from '../probe-events/probe-recorder.js';
import { TraceFlag } from '../trace-output/lat-fmt.js';
import type { TracerKprobes } from '../view/tracer-kprobes.js';
import type { ProbeSink } from './probe-sink.js';

/** Mutable hit header, reused for every hit of a probe. */
interface HitScratch {
  pid: number;
  flags: number;
  preemptCount: number;
  ip: bigint;
  retIp: bigint;
}

/** How many `$argN` a return probe reads at entry (the highest index + 1). */
function entryArgCount(def: ProbeDefinition): number {
  let n = 0;
  for (const a of def.args) for (const insn of a.code) if (insn.op === 'edata') n = Math.max(n, insn.param + 1);
  return n;
}

/**
 * One probe of a kprobe event (an event has several when multiprobe): its `struct kprobe` or
 * `struct kretprobe`, registered DISABLED at definition and enabled with its event, the hit counter of
 * `kprobe_profile`, and the dispatchers that record a hit. Recording runs inside the kprobe handler on
 * the host, so it costs the guest no virtual time.
 *
 * @see kernel/trace/trace_kprobe.c struct trace_kprobe, kprobe_dispatcher(), kretprobe_dispatcher()
 * @example
 * const tk = new TraceKprobe(def, 1500, filter, sink);
 * tk.register(kprobes, false); // registered [DISABLED]
 * tk.enable(kprobes);
 */
export class TraceKprobe {
  /** `nhit`: times the probe fired. */
  nhit = 0;
  /** False for a `MOD:SYM` probe waiting for its module. */
  registered = false;
  readonly kp: Kprobe;
  readonly rp: Kretprobe | undefined;
  readonly #recorder: ProbeRecorder;
  readonly #hit: HitScratch = { pid: 0, flags: TraceFlag.IRQS_OFF, preemptCount: 0, ip: 0n, retIp: 0n };
  readonly #nEntryArgs: number;
  /** One register's halves, reused by every entry handler. */
  readonly #halves = new Uint32Array(2);
  #lastTask: unknown;
  #lastComm = '';

  constructor(
    readonly def: ProbeDefinition,
    eventId: number,
    private readonly filter: EventFilter,
    private readonly sink: ProbeSink,
  ) {
    this.#recorder = new ProbeRecorder(def, eventId);
    this.#nEntryArgs = entryArgCount(def);
    const where: Kprobe =
      def.symbol !== undefined ? { symbolName: def.symbol, offset: def.offset } : { addr: def.address };
    if (def.kind === 'p') {
      this.kp = { ...where, preHandler: (_p, regs) => this.#kprobeDispatcher(regs) };
      this.rp = undefined;
      return;
    }
    this.kp = where;
    this.rp = {
      kp: this.kp,
      maxactive: def.maxactive || undefined,
      handler: (ri, regs) => this.#kretprobeDispatcher(ri, regs),
      ...(this.#nEntryArgs
        ? { dataSize: 8 * this.#nEntryArgs, entryHandler: (ri, regs) => this.#entryHandler(ri, regs) }
        : {}),
    };
  }

  /** The maxactive registration settled on (the default written back), 0 for kprobes. */
  get maxactive(): number {
    return this.rp?.maxactive ?? 0;
  }

  /** `kprobe_profile` misses: the kprobe's nmissed plus the kretprobe's. */
  get nmissed(): number {
    return (this.kp.nmissed ?? 0) + (this.rp?.nmissed ?? 0);
  }

  /**
   * Registers with kprobes, DISABLED unless the event is already enabled; throws the `KprobeError`.
   *
   * @see kernel/trace/trace_kprobe.c __register_trace_kprobe()
   */
  register(k: TracerKprobes, enabled: boolean): void {
    this.kp.flags = enabled ? 0 : KprobeFlag.DISABLED;
    if (this.rp) k.registerKretprobe(this.rp);
    else k.registerKprobe(this.kp);
    this.registered = true;
  }

  /** @see kernel/trace/trace_kprobe.c __unregister_trace_kprobe() */
  unregister(k: TracerKprobes): void {
    if (!this.registered) return;
    if (this.rp) k.unregisterKretprobe(this.rp);
    else k.unregisterKprobe(this.kp);
    this.registered = false;
    // Ready for reuse: a probe defined by symbol must not carry the address kprobes wrote back.
    if (this.kp.symbolName !== undefined) this.kp.addr = undefined;
  }

  /** @see kernel/trace/trace_kprobe.c enable_trace_kprobe() */
  enable(k: TracerKprobes): void {
    // A probe whose module went away stays GONE: enabling the event skips it, as the kernel does.
    if (this.registered && ((this.kp.flags ?? 0) & KprobeFlag.GONE) === 0) k.enableKprobe(this.kp);
  }

  /** @see kernel/trace/trace_kprobe.c disable_trace_kprobe() */
  disable(k: TracerKprobes): void {
    if (this.registered) k.disableKprobe(this.kp);
  }

  #kprobeDispatcher(regs: PtRegs): number {
    this.nhit++;
    this.#hit.ip = this.kp.addr ?? 0n;
    this.#commit(regs, undefined);
    return 0;
  }

  /** Saves `$argN` for the return probe in the instance's data, as 8-byte little-endian words. */
  #entryHandler(ri: KretprobeInstance, regs: PtRegs): number {
    const data = ri.data;
    const r = this.sink.view.regs;
    const halves = this.#halves;
    for (let i = 0; i < this.#nEntryArgs; i++) {
      const at = 8 * i;
      if (i < SYSV_ARG_REGS.length) {
        r.raw(regs, SYSV_ARG_REGS[i], halves);
        writeU32(data, at, halves[0]);
        writeU32(data, at + 4, halves[1]);
      } else {
        const v = r.argument(regs, i);
        writeU32(data, at, Number(v & 0xffffffffn));
        writeU32(data, at + 4, Number(v >> 32n));
      }
    }
    return 0;
  }

  #kretprobeDispatcher(ri: KretprobeInstance, regs: PtRegs): void {
    this.nhit++;
    this.#hit.ip = this.kp.addr ?? 0n;
    this.#hit.retIp = ri.retAddr;
    this.#commit(regs, this.#nEntryArgs ? ri.data : undefined);
  }

  /**
   * Step 1: fill the header from the current task. Step 2: measure the strings and reserve the record
   * in this CPU's buffer at the CPU's virtual time. Step 3: evaluate the fetch args straight into the
   * reservation. Step 4: commit it, or discard it if the event's filter rejects it.
   *
   * @see kernel/trace/trace_kprobe.c __kprobe_trace_func(), trace_event_buffer_commit(), __trace_event_discard_commit()
   */
  #commit(regs: PtRegs, entryArgs: Uint8Array | undefined): void {
    const { view, contexts, buffer, cmdlines } = this.sink;
    if (!buffer.tracingOn) return;
    const cpu = view.regs.smpProcessorId(regs);
    const task = view.tasks.current(cpu);
    const hit = this.#hit;
    hit.pid = task?.pid ?? 0;
    // trace_save_cmdline(): the map is touched only when the task or its comm changed since last hit.
    if (task !== undefined && (task !== this.#lastTask || task.comm !== this.#lastComm)) {
      this.#lastTask = task;
      this.#lastComm = task.comm;
      if (cmdlines.get(task.pid) !== task.comm) cmdlines.set(task.pid, task.comm);
    }
    const src = contexts[cpu].at(regs, entryArgs);
    const recorder = this.#recorder;
    const ev = buffer.reserve(cpu, recorder.fixedSize + recorder.dataSize(src), view.clock.now(cpu));
    if (ev === undefined) return;
    recorder.store(src, hit as ProbeHit, ev.bytes, ev.view, ev.offset);
    if (this.filter.match(ev.bytes, ev.offset)) buffer.commit(cpu);
    else buffer.discard(cpu);
  }
}

function writeU32(data: Uint8Array, at: number, v: number): void {
  data[at] = v;
  data[at + 1] = v >>> 8;
  data[at + 2] = v >>> 16;
  data[at + 3] = v >>> 24;
}
