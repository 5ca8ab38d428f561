import type { Machine, PtRegs } from '@int3/kernel';
import type { Kprobe, Kprobes } from '@int3/kprobes';
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
  #machine: Machine | undefined;
  #kprobes: Kprobes | undefined;
  #kp: Kprobe | undefined;

  start(ctx: TracerContext): void {
    const m = ctx.machine;
    this.#machine = m;
    const kp: Kprobe = { symbolName: ctx.args[0] ?? 'do_syscall_64', preHandler: (_p, regs) => this.#hit(m, regs) };
    ctx.kprobes.registerKprobe(kp);
    this.#kprobes = ctx.kprobes;
    this.#kp = kp;
  }

  stop(): void {
    if (this.#kprobes && this.#kp) this.#kprobes.unregisterKprobe(this.#kp);
    this.#kprobes = undefined;
    this.#kp = undefined;
  }

  /** `sys_read` → `read`, from `sys_call_table[nr]`; `nr<N>` when it cannot be read. */
  syscallName(nr: number): string {
    const m = this.#machine;
    const table = m?.kallsyms.lookupName('sys_call_table');
    if (!m || !table) return `nr${nr}`;
    try {
      const sym = m.kallsyms.lookup(m.space.readU64(table.address + BigInt(nr * 8)));
      return sym && sym.offset === 0 ? sym.sym.name.replace(/^sys_/, '') : `nr${nr}`;
    } catch {
      return `nr${nr}`;
    }
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

  #hit(m: Machine, regs: PtRegs): number {
    const task = m.sched.current[regs.cpu.id];
    const pid = task?.pid ?? 0;
    let t = this.tasks.get(pid);
    if (!t) {
      t = { pid, comm: task?.comm ?? '<idle>', total: 0, byNr: new Map() };
      this.tasks.set(pid, t);
    }
    if (task) t.comm = task.comm;
    const nr = Number(BigInt.asIntN(64, regs.get('si')));
    t.total++;
    t.byNr.set(nr, (t.byNr.get(nr) ?? 0) + 1);
    return 0;
  }
}
