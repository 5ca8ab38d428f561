import type { Kprobe, Kretprobe } from '@int3/kprobes';
import { injectable } from 'inversify';
import type { Tracer, TracerReport } from '../plugins/tracer.js';
import type { TracerContext } from '../plugins/tracer-context.js';
import { TracerUsageError } from '../plugins/tracer-usage-error.js';
import type { TracerKprobes } from '../view/tracer-kprobes.js';
import type { TracerTasks } from '../view/tracer-tasks.js';
import { ChromeTraceBuilder } from './chrome-trace-builder.js';
import type { ChromeTraceDocument } from './chrome-trace-event.js';

/** A hit, kept as numbers until the report (ts in virtual ns). */
interface Hit {
  readonly kind: 'entry' | 'return' | 'instant';
  readonly func: string;
  readonly ts: number;
  readonly cpu: number;
  readonly pid: number;
}

/** The argument that selects `X` complete events instead of `B`/`E` pairs. */
const COMPLETE_FLAG = '--complete';

/**
 * chrome-trace: records kernel function calls as Chrome Trace Event JSON that Perfetto UI opens. A
 * plain name is traced with a kretprobe — its entry handler marks the entry, its handler the return,
 * written as a `B`/`E` pair (or one `X` complete event with `--complete`) — and `p:NAME` with a
 * kprobe, one instant event per hit. Tracks are per CPU (`pid`) and task (`tid`), named by metadata
 * events; see {@link ChromeTraceBuilder}.
 *
 * @see https://perfetto.dev/docs/getting-started/other-formats (JSON trace format)
 * @example
 * host.start('chrome-trace', ['vfs_read', 'p:do_sys_open', '--complete']);
 * writeFileSync('trace.json', host.report('chrome-trace').text);
 */
@injectable()
export class ChromeTrace implements Tracer {
  readonly name = 'chrome-trace';
  readonly description =
    'record kernel function calls as Chrome Trace Event JSON (Perfetto): [--complete] FUNC|p:FUNC...';
  readonly #hits: Hit[] = [];
  readonly #comms = new Map<number, string>();
  #complete = false;
  #kprobes: TracerKprobes | undefined;
  #kps: Kprobe[] = [];
  #rps: Kretprobe[] = [];

  start(ctx: TracerContext): void {
    const funcs = ctx.args.filter((a) => a !== COMPLETE_FLAG);
    if (funcs.length === 0)
      throw new TracerUsageError(
        'usage: chrome-trace [--complete] FUNCTION|p:FUNCTION... (e.g. vfs_read p:do_sys_open)',
      );
    this.#complete = ctx.args.includes(COMPLETE_FLAG);
    this.#kprobes = ctx.kprobes;
    const { clock, regs: r, tasks } = ctx;
    for (const arg of funcs) {
      if (arg.startsWith('p:')) {
        const func = arg.slice(2);
        const kp: Kprobe = {
          symbolName: func,
          preHandler: (_p, regs) => {
            const cpu = r.smpProcessorId(regs);
            this.#push(tasks, cpu, func, 'instant', clock.now(cpu));
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
        entryHandler: (_ri, regs) => {
          const cpu = r.smpProcessorId(regs);
          this.#push(tasks, cpu, func, 'entry', clock.now(cpu));
          return 0;
        },
        handler: (_ri, regs) => {
          const cpu = r.smpProcessorId(regs);
          this.#push(tasks, cpu, func, 'return', clock.now(cpu));
        },
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

  /** The trace as a Chrome Trace Event document: metadata, then the events in time order. */
  document(): ChromeTraceDocument {
    const builder = new ChromeTraceBuilder({ complete: this.#complete });
    // Hits arrive in time order per CPU; merge CPUs by time (stable, so same-time hits keep their order).
    const hits = [...this.#hits].sort((a, b) => a.ts - b.ts);
    for (const h of hits) {
      builder.add({
        kind: h.kind,
        name: h.func,
        cat: h.kind === 'instant' ? 'kprobe' : 'kretprobe',
        ts: h.ts,
        cpu: h.cpu,
        tid: h.pid,
        comm: h.pid === 0 ? '<idle>' : (this.#comms.get(h.pid) ?? '<...>'),
      });
    }
    return builder.document();
  }

  report(): TracerReport {
    return { format: 'json', text: `${JSON.stringify(this.document())}\n` };
  }

  #push(tasks: TracerTasks, cpu: number, func: string, kind: Hit['kind'], ts: number): void {
    const task = tasks.current(cpu);
    const pid = task?.pid ?? 0;
    if (task && this.#comms.get(pid) !== task.comm) this.#comms.set(pid, task.comm);
    this.#hits.push({ kind, func, ts, cpu, pid });
  }
}
