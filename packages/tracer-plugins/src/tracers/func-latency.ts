import type { PtRegs } from '@int3/kernel';
import type { Kprobes, Kretprobe, KretprobeInstance } from '@int3/kprobes';
import { inject, injectable } from 'inversify';
import type { Tracer, TracerReport } from '../plugins/tracer.js';
import type { TracerClock } from '../plugins/tracer-clock.js';
import type { TracerContext } from '../plugins/tracer-context.js';
import { TracerTokens } from '../plugins/tracer-tokens.js';
import { Log2Histogram } from './log2-histogram.js';
import { printLog2Hist } from './print-log2-hist.js';

/** Scratch for moving a float64 timestamp in and out of a kretprobe instance's data without allocating. */
const f64 = new Float64Array(1);
const f64Bytes = new Uint8Array(f64.buffer);

/** One traced function: its kretprobe and its histogram. */
interface Traced {
  readonly func: string;
  readonly rp: Kretprobe;
  readonly hist: Log2Histogram;
}

/**
 * funclatency: times each call of the given kernel functions in virtual ns — the entry handler stores
 * the entry time in the kretprobe instance's data, the return handler adds `now − entry` to the
 * function's log2 histogram — and prints the histograms as bcc's funclatency does.
 *
 * @see bcc tools/funclatency.py; kernel/kprobes.c pre_handler_kretprobe() (entry_handler, data)
 * @example
 * host.start('funclatency', ['vfs_read', 'vfs_write']);
 */
@injectable()
export class FuncLatency implements Tracer {
  readonly name = 'funclatency';
  #kprobes: Kprobes | undefined;
  #traced: Traced[] = [];

  constructor(@inject(TracerTokens.Clock) private readonly clock: TracerClock) {}

  start(ctx: TracerContext): void {
    if (ctx.args.length === 0) throw new Error('usage: funclatency FUNCTION... (e.g. funclatency vfs_read)');
    this.#kprobes = ctx.kprobes;
    this.#traced = [];
    for (const func of ctx.args) {
      const hist = new Log2Histogram();
      const rp: Kretprobe = {
        kp: { symbolName: func },
        dataSize: 8,
        entryHandler: (ri, regs) => this.#entry(ri, regs),
        handler: (ri, regs) => this.#return(ri, regs, hist),
      };
      ctx.kprobes.registerKretprobe(rp);
      this.#traced.push({ func, rp, hist });
    }
  }

  stop(): void {
    const k = this.#kprobes;
    if (!k) return;
    for (const t of this.#traced) k.unregisterKretprobe(t.rp);
    this.#kprobes = undefined;
  }

  /** The histograms, keyed by function (also after `stop`). */
  histograms(): ReadonlyMap<string, Log2Histogram> {
    return new Map(this.#traced.map((t) => [t.func, t.hist]));
  }

  report(): TracerReport {
    const parts = this.#traced.map((t) => {
      const h = t.hist;
      const avg = h.count === 0 ? 0 : Math.floor(h.total / h.count);
      return (
        `Function = ${t.func}\n${printLog2Hist(h, 'nsecs')}` +
        `\navg = ${avg} nsecs, total: ${h.total} nsecs, count: ${h.count}\n`
      );
    });
    return { format: 'text', text: parts.join('\n') };
  }

  #entry(ri: KretprobeInstance, regs: PtRegs): number {
    f64[0] = this.clock.now(regs.cpu.id);
    ri.data.set(f64Bytes);
    return 0;
  }

  #return(ri: KretprobeInstance, regs: PtRegs, hist: Log2Histogram): void {
    const d = ri.data;
    for (let i = 0; i < 8; i++) f64Bytes[i] = d[i];
    hist.add(this.clock.now(regs.cpu.id) - f64[0]);
  }
}
