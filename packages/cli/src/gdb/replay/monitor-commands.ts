import type { LoadedModule, Session } from '@int3/kernel';
import { escapeControls } from '../../runtime/escape-controls.js';

/** What `monitor help` prints. */
export const MONITOR_HELP = `int3 monitor commands:
  info      virtual time, log event, instructions retired, tasks
  event N   go to the first instruction after event N of the log (then: maint flush register-cache)
  lsmod     loaded modules, each with the add-symbol-file line that gives gdb its symbols
  kprobes   the registered kprobes (/sys/kernel/debug/kprobes/list)
  trace     the trace up to here (/sys/kernel/tracing/trace)
`;

/** `monitor lsmod`: each module with the gdb command that loads its symbols at its sections' addresses. */
export function lsmod(modules: readonly LoadedModule[]): string {
  if (modules.length === 0) return 'no modules loaded\n';
  return modules
    .map((m) => {
      const name = escapeControls(m.name);
      const text = m.sections.get('.text') ?? m.textStart;
      const others = [...m.sections]
        .filter(([s]) => s !== '.text' && !s.startsWith('.debug') && !s.startsWith('.rela'))
        .map(([s, a]) => ` -s ${escapeControls(s)} 0x${a.toString(16)}`)
        .join('');
      return `${name} 0x${m.textStart.toString(16)}-0x${m.textEnd.toString(16)}\n  add-symbol-file ${name}.ko 0x${text.toString(16)}${others}\n`;
    })
    .join('');
}

/**
 * The lines of a trace (`/sys/kernel/tracing/trace` text) up to a point of the run: its header, and
 * each record whose timestamp is at most the virtual time of its CPU (`clock`), to the µs the lines
 * show.
 */
export function traceUpTo(trace: string, cpus: number, clock: (cpu: number) => number): string {
  return trace
    .split('\n')
    .filter((line) => {
      const t = /\[(\d{3})\]\s+\S+\s+(\d+)\.(\d{6}):/.exec(line);
      if (!t) return line !== '';
      const cpu = Number(t[1]);
      const us = Number(t[2]) * 1e6 + Number(t[3]);
      return cpu < cpus && us * 1000 <= clock(cpu);
    })
    .map((line) => `${line}\n`)
    .join('');
}

/** `monitor info`: virtual time, where in the log, instructions retired, the tasks and their CPUs. */
export function describeMachine(s: Session, logLength: number, atEnd: boolean): string {
  const m = s.machine;
  const lines = [
    `virtual time: ${m.cpus.map((_, c) => `cpu${c} ${m.clock(c)} ns`).join(', ')}`,
    `log: after event ${s.position - 1} of ${logLength - 1}${atEnd ? ' (the end of the run)' : ''}`,
    `instructions retired: ${m.cpus.map((c) => c.retired).reduce((a, b) => a + b, 0)}`,
    'tasks:',
    ...[...m.sched.tasks.values()].map((t) => {
      const on = m.sched.current.indexOf(t);
      return `  ${t.pid} ${escapeControls(t.comm)} ${t.state}${on >= 0 ? ` on cpu${on}` : ''}`;
    }),
  ];
  return `${lines.join('\n')}\n`;
}
