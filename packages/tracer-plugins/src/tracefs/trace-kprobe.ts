import { type PtRegs, SYSV_ARG_REGS } from '@int3/kernel';
import { type Kprobe, KprobeFlag, type Kretprobe, type KretprobeInstance } from '@int3/kprobes';
import type { EventFilter } from '../filter/event-filter.js';
import type { ProbeDefinition } from '../probe-events/probe-definition.js';
import { type ProbeHit, ProbeRecorder } from '../probe-events/probe-recorder.js';
import { TraceFlag } from '../trace-output/lat-fmt.js';
import type { TriggerHit } from '../triggers/event-trigger.js';
import type { EventTriggers } from '../triggers/event-triggers.js';
import type { TracerKprobes } from '../view/tracer-kprobes.js';
import type { ProbeSink } from './probe-sink.js';
import { EventFileFlag, type TraceEventFile } from './trace-event-file.js';

/** Mutable hit header, reused for every hit of a probe. */
interface HitScratch {
  pid: number;
  flags: number;
  preemptCount: number;
  ip: bigint;
  retIp: bigint;
}

/** The event a probe belongs to, as its hits need it: the enable flags and the triggers. */
export interface TriggerSite {
  readonly file: TraceEventFile;
  readonly triggers: EventTriggers;
}

/** Flags that send a hit through the trigger checks before anything else. */
const TRIGGER_CHECK = EventFileFlag.TRIGGER_MODE | EventFileFlag.SOFT_DISABLED;

/** How many `$argN` a return probe reads at entry (the highest index + 1). */
function entryArgCount(def: ProbeDefinition): number {
  let n = 0;
  for (const a of def.args) for (const insn of a.code) if (insn.op === 'edata') n = Math.max(n, insn.param + 1);
  return n;
}

/** A {@link TraceKprobe} at a machine snapshot. */
export type TraceKprobeState = readonly [number, boolean, unknown, string];

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
  /** The hit as triggers see it, made at the first hit that has triggers and reused. */
  #triggerHit: TriggerHit | undefined;
  /** Where a record is built for the triggers when the buffer takes none (the kernel's temp_buffer). */
  #tempBuffer: Uint8Array = new Uint8Array(0);
  #tempView: DataView = new DataView(this.#tempBuffer.buffer);
  #lastTask: unknown;
  #lastComm = '';

  /** The hit counter, whether registered, and the last task it noted in `saved_cmdlines`, for a machine snapshot. */
  save(): TraceKprobeState {
    return Object.freeze([this.nhit, this.registered, this.#lastTask, this.#lastComm] as const);
  }

  /** Puts back what {@link save} returned (kprobes' own snapshot holds the registration itself). */
  restore(s: TraceKprobeState): void {
    [this.nhit, this.registered, this.#lastTask, this.#lastComm] = s;
  }

  constructor(
    readonly def: ProbeDefinition,
    eventId: number,
    private readonly filter: EventFilter,
    private readonly sink: ProbeSink,
    private readonly site?: TriggerSite,
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
   * Step 1: with triggers but none needing the record, call them now; a soft-disabled event records
   * nothing more. Step 2: fill the header from the current task. Step 3: measure the strings and
   * reserve the record in this CPU's buffer at the CPU's virtual time (when the buffer takes none but a
   * trigger needs the record, build it aside). Step 4: evaluate the fetch args straight into the
   * reservation. Step 5: run the triggers that need the record; commit it, or discard it if the event is
   * soft-disabled or its filter rejects it. Step 6: run the post triggers (`traceoff`, `stacktrace`).
   *
   * @see kernel/trace/trace_kprobe.c __kprobe_trace_func(), trace_trigger_soft_disabled(),
   *   trace_event_buffer_commit(), __event_trigger_test_discard()
   */
  #commit(regs: PtRegs, entryArgs: Uint8Array | undefined): void {
    const { view, contexts, buffer, cmdlines } = this.sink;
    const site = this.site;
    const flags = site === undefined ? 0 : site.file.flags;
    const cond = (flags & EventFileFlag.TRIGGER_COND) !== 0;
    if (flags & TRIGGER_CHECK && !cond) {
      if (flags & EventFileFlag.TRIGGER_MODE) site?.triggers.call(this.#aimHit(regs, undefined, undefined, 0));
      if (flags & EventFileFlag.SOFT_DISABLED) return;
    }
    if (!buffer.tracingOn && !cond) return;
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
    const size = recorder.fixedSize + recorder.dataSize(src);
    const ev = buffer.reserve(cpu, size, view.clock.now(cpu));
    if (ev === undefined && !cond) return;
    if (ev !== undefined) recorder.store(src, hit as ProbeHit, ev.bytes, ev.view, ev.offset);
    if (site === undefined || !cond) {
      if (ev === undefined) return;
      if (this.filter.match(ev.bytes, ev.offset)) buffer.commit(cpu);
      else buffer.discard(cpu);
      return;
    }
    let bytes: Uint8Array;
    let dv: DataView;
    let offset: number;
    if (ev !== undefined) {
      bytes = ev.bytes;
      dv = ev.view;
      offset = ev.offset;
    } else {
      if (this.#tempBuffer.length < size) {
        this.#tempBuffer = new Uint8Array(Math.max(size, 2 * this.#tempBuffer.length));
        this.#tempView = new DataView(this.#tempBuffer.buffer);
      }
      bytes = this.#tempBuffer;
      dv = this.#tempView;
      offset = 0;
      recorder.store(src, hit as ProbeHit, bytes, dv, offset);
    }
    const thit = this.#aimHit(regs, bytes, dv, offset);
    const tt = site.triggers.call(thit);
    if (ev !== undefined) {
      if (!(site.file.flags & EventFileFlag.SOFT_DISABLED) && this.filter.match(bytes, offset)) buffer.commit(cpu);
      else buffer.discard(cpu);
    }
    if (tt !== 0) site.triggers.postCall(tt, thit);
  }

  /** Fills the reused trigger view of this hit. */
  #aimHit(regs: PtRegs, rec: Uint8Array | undefined, dv: DataView | undefined, offset: number): TriggerHit {
    const view = this.sink.view;
    const cpu = view.regs.smpProcessorId(regs);
    let t = this.#triggerHit;
    if (t === undefined) {
      t = { regs, probeAddr: 0n, cpu, pid: 0, flags: 0, preemptCount: 0, ts: 0, rec, view: dv, offset };
      this.#triggerHit = t;
    }
    t.regs = regs;
    t.probeAddr = this.kp.addr ?? 0n;
    t.cpu = cpu;
    t.pid = view.tasks.current(cpu)?.pid ?? 0;
    t.flags = this.#hit.flags;
    t.preemptCount = this.#hit.preemptCount;
    t.ts = view.clock.now(cpu);
    t.rec = rec;
    t.view = dv;
    t.offset = offset;
    return t;
  }
}

function writeU32(data: Uint8Array, at: number, v: number): void {
  data[at] = v;
  data[at + 1] = v >>> 8;
  data[at + 2] = v >>> 16;
  data[at + 3] = v >>> 24;
}
