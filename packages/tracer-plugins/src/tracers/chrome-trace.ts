import type { Machine, PtRegs } from '@int3/kernel';
import type { Kprobe, Kprobes, Kretprobe, KretprobeInstance } from '@int3/kprobes';
import { injectable } from 'inversify';
import type { Tracer, TracerReport } from '../plugins/tracer.js';
import type { TracerClock } from '../plugins/tracer-clock.js';
import type { TracerContext } from '../plugins/tracer-context.js';
import type { ChromeTraceDocument, ChromeTraceEvent } from './chrome-trace-event.js';

const f64 = new Float64Array(1);
const f64Bytes = new Uint8Array(f64.buffer);

/** A hit, kept as numbers until the report (ts/dur in virtual ns). */
interface Hit {
  readonly func: string;
  readonly kind: 'X' | 'i';
  readonly ts: number;
  readonly dur: number;
  readonly cpu: number;
  readonly pid: number;
  readonly tgid: number;
}

/**
 * chrome-trace: records kernel function calls as Chrome Trace Event JSON that Perfetto UI opens. A
 * plain name is traced with a kretprobe — entry time in the instance's data, one complete (`X`) event
 * per call at return, so begin and end always pair — and `p:NAME` with a kprobe, one instant event per
 * hit. Events go on the task's track (pid = tgid, tid = pid, named after `comm`) with the CPU in `args`.
 *
 * @see https://perfetto.dev/docs/getting-started/other-formats (JSON trace format)
 * @example
 * host.start('chrome-trace', ['vfs_read', 'p:do_sys_open']);
 * writeFileSync('trace.json', host.report('chrome-trace').text);
 */
@injectable()
export class ChromeTrace implements Tracer {
  readonly name = 'chrome-trace';
  readonly #hits: Hit[] = [];
  readonly #comms = new Map<number, string>();
  #kprobes: Kprobes | undefined;
  #kps: Kprobe[] = [];
  #rps: Kretprobe[] = [];

  start(ctx: TracerContext): void {
    if (ctx.args.length === 0)
      throw new Error('usage: chrome-trace FUNCTION|p:FUNCTION... (e.g. vfs_read p:do_sys_open)');
    this.#kprobes = ctx.kprobes;
    const { machine: m, clock } = ctx;
    for (const arg of ctx.args) {
      if (arg.startsWith('p:')) {
        const func = arg.slice(2);
        const kp: Kprobe = {
          symbolName: func,
          preHandler: (_p, regs) => {
            this.#push(m, regs, func, 'i', clock.now(regs.cpu.id), 0);
            return 0;
          },
        };
        ctx.kprobes.registerKprobe(kp);
        this.#kps.push(kp);
        continue;
      }
      const func = arg.startsWith('r:') ? arg.slice(2) : arg;
      const rp: Kretprobe = {
        kp: { symbolName: func },
        dataSize: 8,
        entryHandler: (ri, regs) => this.#entry(ri, regs, clock),
        handler: (ri, regs) => this.#return(ri, regs, m, clock, func),
      };
      ctx.kprobes.registerKretprobe(rp);
      this.#rps.push(rp);
    }
  }

  stop(): void {
    const k = this.#kprobes;
    if (!k) return;
    for (const rp of this.#rps) k.unregisterKretprobe(rp);
    for (const kp of this.#kps) k.unregisterKprobe(kp);
    this.#rps = [];
    this.#kps = [];
    this.#kprobes = undefined;
  }

  /** The trace as a Chrome Trace Event document, events sorted by time after the metadata. */
  document(): ChromeTraceDocument {
    const meta: ChromeTraceEvent[] = [];
    const tasks = new Map<number, number>();
    for (const h of this.#hits) tasks.set(h.pid, h.tgid);
    for (const [pid, tgid] of [...tasks].sort((a, b) => a[0] - b[0])) {
      const comm = this.#comms.get(pid) ?? '<idle>';
      if (pid === tgid) meta.push({ name: 'process_name', ph: 'M', pid: tgid, tid: pid, args: { name: comm } });
      meta.push({ name: 'thread_name', ph: 'M', pid: tgid, tid: pid, args: { name: `${comm}-${pid}` } });
    }
    const hits = [...this.#hits].sort((a, b) => a.ts - b.ts || b.dur - a.dur);
    const events = hits.map(
      (h): ChromeTraceEvent =>
        h.kind === 'X'
          ? {
              name: h.func,
              cat: 'kretprobe',
              ph: 'X',
              ts: h.ts / 1000,
              dur: h.dur / 1000,
              pid: h.tgid,
              tid: h.pid,
              args: { cpu: h.cpu },
            }
          : {
              name: h.func,
              cat: 'kprobe',
              ph: 'i',
              s: 't',
              ts: h.ts / 1000,
              pid: h.tgid,
              tid: h.pid,
              args: { cpu: h.cpu },
            },
    );
    return {
      traceEvents: [...meta, ...events],
      displayTimeUnit: 'ns',
      otherData: { tool: 'int3 chrome-trace', clock: 'virtual' },
    };
  }

  report(): TracerReport {
    return { format: 'json', text: `${JSON.stringify(this.document())}\n` };
  }

  #entry(ri: KretprobeInstance, regs: PtRegs, clock: TracerClock): number {
    f64[0] = clock.now(regs.cpu.id);
    ri.data.set(f64Bytes);
    return 0;
  }

  #return(ri: KretprobeInstance, regs: PtRegs, m: Machine, clock: TracerClock, func: string): void {
    const d = ri.data;
    for (let i = 0; i < 8; i++) f64Bytes[i] = d[i];
    const entry = f64[0];
    this.#push(m, regs, func, 'X', entry, Math.max(0, clock.now(regs.cpu.id) - entry));
  }

  #push(m: Machine, regs: PtRegs, func: string, kind: 'X' | 'i', ts: number, dur: number): void {
    const cpu = regs.cpu.id;
    const task = m.sched.current[cpu];
    const pid = task?.pid ?? 0;
    if (task && this.#comms.get(pid) !== task.comm) this.#comms.set(pid, task.comm);
    this.#hits.push({ func, kind, ts, dur, cpu, pid, tgid: task?.tgid ?? 0 });
  }
}
