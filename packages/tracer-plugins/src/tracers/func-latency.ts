import { KprobeError, type Kretprobe, type KretprobeInstance } from '@int3/kprobes';
import { inject, injectable } from 'inversify';
import type { Tracer, TracerReport } from '../plugins/tracer.js';
import type { TracerClock } from '../plugins/tracer-clock.js';
import type { TracerContext } from '../plugins/tracer-context.js';
import { TracerTokens } from '../plugins/tracer-tokens.js';
import { TracerUsageError } from '../plugins/tracer-usage-error.js';
import type { TracerKprobes } from '../view/tracer-kprobes.js';
import { type FuncLatencyArgs, matchFunctions, parseFuncLatencyArgs } from './func-latency-args.js';
import { Log2Histogram } from './log2-histogram.js';
import { printLog2Hist } from './print-log2-hist.js';

/** Scratch for moving a float64 timestamp in and out of a kretprobe instance's data without allocating. */
const f64 = new Float64Array(1);
const f64Bytes = new Uint8Array(f64.buffer);

/** One traced function: its kretprobe and its own histogram (printed with `-F`). */
interface Traced {
  readonly func: string;
  readonly address: bigint;
  readonly rp: Kretprobe;
  readonly hist: Log2Histogram;
}

/**
 * funclatency: times each call of the kernel functions a pattern names, in virtual ns — the entry
 * handler stores the entry time in the kretprobe instance's data, the return handler adds
 * `(now − entry) / unit` to the log2 histogram — and prints what bcc's funclatency prints when it
 * stops: the histogram (one per function with `-F`, under `Function = NAME`), then
 * `avg = A nsecs, total: T nsecs, count: N`. A function a wildcard names that cannot be probed
 * (blacklisted, not an instruction boundary) is skipped, as bcc skips it; an exact name must probe.
 *
 * @see bcc tools/funclatency.py; kernel/kprobes.c pre_handler_kretprobe() (entry_handler, data)
 * @example
 * host.start('funclatency', ['-u', 'vfs_*']);
 */
@injectable()
export class FuncLatency implements Tracer {
  readonly name = 'funclatency';
  readonly description = 'time kernel functions, print their latency as a log2 histogram (bcc): [-u|-m] [-F] PATTERN';
  #kprobes: TracerKprobes | undefined;
  #traced: Traced[] = [];
  #args: FuncLatencyArgs | undefined;
  readonly #all = new Log2Histogram();
  #totalNs = 0;
  #count = 0;

  constructor(@inject(TracerTokens.Clock) private readonly clock: TracerClock) {}

  start(ctx: TracerContext): void {
    const args = parseFuncLatencyArgs(ctx.args);
    const funcs = matchFunctions(ctx.symbols, args.pattern);
    const wildcard = args.pattern.includes('*');
    const r = ctx.regs;
    this.#args = args;
    this.#kprobes = ctx.kprobes;
    this.#traced = [];
    for (const func of funcs) {
      const hist = new Log2Histogram();
      const rp: Kretprobe = {
        kp: { symbolName: func },
        dataSize: 8,
        entryHandler: (ri, regs) => this.#entry(ri, r.smpProcessorId(regs)),
        handler: (ri, regs) => this.#return(ri, r.smpProcessorId(regs), hist),
      };
      try {
        ctx.kprobes.registerKretprobe(rp);
      } catch (error) {
        if (wildcard && error instanceof KprobeError) continue;
        throw error;
      }
      this.#traced.push({ func, address: ctx.symbols.lookupName(func) ?? 0n, rp, hist });
    }
    if (this.#traced.length === 0) throw new TracerUsageError(`0 functions matched by "${args.pattern}"`);
  }

  stop(): void {
    const k = this.#kprobes;
    if (!k) return;
    for (const t of this.#traced) k.unregisterKretprobe(t.rp);
    this.#kprobes = undefined;
  }

  /** The per-function histograms, keyed by function (also after `stop`). */
  histograms(): ReadonlyMap<string, Log2Histogram> {
    return new Map(this.#traced.map((t) => [t.func, t.hist]));
  }

  report(): TracerReport {
    const args = this.#args;
    if (args === undefined) return { format: 'text', text: '' };
    let text = '';
    if (args.perFunction) {
      const hit = this.#traced.filter((t) => t.hist.count > 0).sort((a, b) => (a.address < b.address ? -1 : 1));
      for (const t of hit) text += `\nFunction = ${t.func}\n${printLog2Hist(t.hist, args.unit)}`;
    } else text += printLog2Hist(this.#all, args.unit);
    if (this.#count > 0) {
      // bcc sums ns, divides the sum by the unit, and prints both %ld (truncated).
      const total = this.#totalNs / args.factor;
      text += `\navg = ${Math.trunc(total / this.#count)} ${args.unit}, total: ${Math.trunc(total)} ${args.unit}, count: ${this.#count}\n`;
    }
    return { format: 'text', text };
  }

  #entry(ri: KretprobeInstance, cpu: number): number {
    f64[0] = this.clock.now(cpu);
    ri.data.set(f64Bytes);
    return 0;
  }

  #return(ri: KretprobeInstance, cpu: number, hist: Log2Histogram): void {
    const d = ri.data;
    for (let i = 0; i < 8; i++) f64Bytes[i] = d[i];
    const delta = Math.max(0, this.clock.now(cpu) - f64[0]);
    this.#totalNs += delta;
    this.#count++;
    const scaled = Math.floor(delta / this.#args!.factor);
    hist.add(scaled);
    this.#all.add(scaled);
  }
}
