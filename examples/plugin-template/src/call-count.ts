import type { PtRegs } from '@int3/kernel';
import { type Kprobe, KprobeError } from '@int3/kprobes';
import {
  type Tracer,
  type TracerContext,
  type TracerKprobes,
  type TracerReport,
  TracerTokens,
} from '@int3/tracer-plugins';
import { inject, injectable } from 'inversify';

/**
 * callcount, in the decorator style: counts the calls of one kernel function per task. inversify
 * builds it and injects the tracer's view of the machine (`TracerContext`: registers, memory, tasks,
 * symbols, clock, kprobes) through its constructor — `@injectable()` and `@inject()` need
 * `experimentalDecorators` and `emitDecoratorMetadata` in tsconfig.json.
 *
 * @example
 * int3 trace --plugin . --tracer 'callcount vfs_read' --run 'cat /etc/motd'
 */
@injectable()
export class CallCount implements Tracer {
  readonly name = 'callcount';
  readonly description = 'count the calls of a kernel function per task: [FUNCTION] (default do_sys_open)';
  readonly counts = new Map<string, number>();
  #kprobes: TracerKprobes | undefined;
  #kp: Kprobe | undefined;
  #func = 'do_sys_open';

  constructor(@inject(TracerTokens.Context) private readonly view: TracerContext) {}

  start(ctx: TracerContext): void {
    if (ctx.args.length > 1) throw new Error('usage: callcount [FUNCTION]');
    this.#func = ctx.args[0] ?? 'do_sys_open';
    const kp: Kprobe = { symbolName: this.#func, preHandler: (_p, regs) => this.#hit(regs) };
    // Register through ctx.kprobes: int3 guards it, so a handler that throws cannot take the run down.
    try {
      ctx.kprobes.registerKprobe(kp);
    } catch (error) {
      // int3 hands the plugin its own @int3/kprobes (a peer dependency), so instanceof holds.
      if (error instanceof KprobeError) throw new Error(`cannot probe ${this.#func} (${error.code})`);
      throw error;
    }
    this.#kprobes = ctx.kprobes;
    this.#kp = kp;
  }

  stop(): void {
    if (this.#kprobes && this.#kp) this.#kprobes.unregisterKprobe(this.#kp);
    this.#kprobes = undefined;
    this.#kp = undefined;
  }

  report(): TracerReport {
    const rows = [...this.counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    const lines = [`${'COMM'.padEnd(16)} ${this.#func.padStart(12)}`];
    for (const [comm, n] of rows) lines.push(`${comm.padEnd(16)} ${String(n).padStart(12)}`);
    return { format: 'text', text: `${lines.join('\n')}\n` };
  }

  #hit(regs: PtRegs): number {
    const comm = this.view.tasks.current(this.view.regs.smpProcessorId(regs))?.comm ?? '<idle>';
    this.counts.set(comm, (this.counts.get(comm) ?? 0) + 1);
    return 0;
  }
}
