import type { PtRegs } from '@int3/kernel';
import type { Kprobe } from '@int3/kprobes';
import type { Tracer, TracerContext, TracerReport } from '@int3/tracer-plugins';
import { injectable } from 'inversify';

/** One task's counts. */
export interface TaskSyscalls {
  readonly pid: number;
  comm: string;
  total: number;
  /** Syscall number → calls. */
  readonly byNr: Map<number, number>;
}

/**
 * syscount: counts system calls per task with a kprobe on the syscall dispatcher,
 * `do_syscall_64(struct pt_regs *regs, long nr)` — the number is its second argument, `%si` — and the
 * task running on the CPU. Syscall names come from the kernel's own `sys_call_table`.
 *
 * @see bcc tools/syscount.py; arch/x86/entry/common.c do_syscall_64()
 * @example
 * host.start('syscount'); m.run(); host.stop('syscount');
 * console.log(host.report('syscount').text);
 */
@injectable()
export class Syscount implements Tracer {
  readonly name = 'syscount';
  readonly description = 'count system calls per task, with a kprobe on do_syscall_64 (bcc syscount)';
  readonly tasks = new Map<number, TaskSyscalls>();
  #ctx: TracerContext | undefined;
  #kp: Kprobe | undefined;

  start(ctx: TracerContext): void {
    this.#ctx = ctx;
    const kp: Kprobe = { symbolName: ctx.args[0] ?? 'do_syscall_64', preHandler: (_p, regs) => this.#hit(ctx, regs) };
    ctx.kprobes.registerKprobe(kp);
    this.#kp = kp;
  }

  stop(): void {
    if (this.#ctx && this.#kp) this.#ctx.kprobes.unregisterKprobe(this.#kp);
    this.#kp = undefined;
  }

  /** `sys_read` → `read`, from `sys_call_table[nr]`; `nr<N>` when it cannot be read. */
  syscallName(nr: number): string {
    const ctx = this.#ctx;
    const table = ctx?.symbols.lookupName('sys_call_table');
    if (!ctx || table === undefined) return `nr${nr}`;
    // The table is kernel data, mapped alike in every CPU's address space: CPU 0's will do.
    const entry = ctx.memory.readU64(0, table + BigInt(nr * 8));
    const sym = entry === undefined ? undefined : ctx.symbols.lookup(entry);
    return sym && sym.offset === 0 ? sym.sym.name.replace(/^sys_/, '') : `nr${nr}`;
  }

  report(): TracerReport {
    const lines = [`${'PID'.padEnd(7)}${'COMM'.padEnd(17)}${'SYSCALL'.padEnd(20)}${'COUNT'.padStart(8)}`];
    for (const t of [...this.tasks.values()].sort((a, b) => a.pid - b.pid)) {
      for (const [nr, n] of [...t.byNr].sort((a, b) => b[1] - a[1] || a[0] - b[0])) {
        lines.push(
          `${String(t.pid).padEnd(7)}${t.comm.padEnd(17)}${this.syscallName(nr).padEnd(20)}${String(n).padStart(8)}`,
        );
      }
    }
    return { format: 'text', text: `${lines.join('\n')}\n` };
  }

  #hit(ctx: TracerContext, regs: PtRegs): number {
    const task = ctx.tasks.current(ctx.regs.smpProcessorId(regs));
    const pid = task?.pid ?? 0;
    let t = this.tasks.get(pid);
    if (!t) {
      t = { pid, comm: task?.comm ?? '<idle>', total: 0, byNr: new Map() };
      this.tasks.set(pid, t);
    }
    if (task) t.comm = task.comm;
    const nr = Number(BigInt.asIntN(64, ctx.regs.get(regs, 'si')));
    t.total++;
    t.byNr.set(nr, (t.byNr.get(nr) ?? 0) + 1);
    return 0;
  }
}
