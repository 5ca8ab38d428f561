import type { Machine, TaskEvent } from '@int3/kernel';
import { expect } from 'vitest';
import type { Kprobes } from '../../src/kprobes.js';
import { bootWithKprobes } from './machine.js';

/** The no-perturbation workload mix: every kind of kernel activity, on 4 CPUs. */
export const MIX_WORKLOADS = [
  ['fork', '4'],
  ['net', '3'],
  ['dd', '3'],
  ['cat', '/etc/motd'],
  ['mkdir', '/tmp/p'],
  ['spin', '3000'],
];

/**
 * Everything the guest can see of a run of `workloads` on 4 CPUs (quantum 2000) after `probe` set the
 * machine up: console, task lifecycle, kernel log, each CPU's clock, exit codes.
 */
export function guestView(workloads: readonly string[][], probe: (m: Machine, k: Kprobes) => void) {
  const { m, k } = bootWithKprobes(4, 2000);
  probe(m, k);
  const tasks: TaskEvent[] = [];
  m.streams.tasks$.subscribe((e) => tasks.push(e));
  const started = workloads.map((argv) => m.spawn(argv));
  expect(m.run({ until: () => started.every((t) => t.exited) })).toEqual({ reason: 'done' });
  return {
    console: m.console.map((c) => `${c.at} cpu${c.cpu} pid${c.pid} ${c.text}`),
    tasks: tasks.map((t) => JSON.stringify(t)),
    printk: m.printk.records().map((r) => `${r.timestampNs} ${r.cpu} ${r.text}`),
    clocks: m.cpus.map((_, c) => m.clock(c)),
    exits: started.map((t) => t.exitCode),
  };
}
