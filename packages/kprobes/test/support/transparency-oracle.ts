import { expect } from 'vitest';
import { type Kprobes, kprobesCore } from '../../src/kprobes.js';
import { bootWithKprobes, run } from './machine.js';

/** The workloads the transparency properties run, each on a fresh machine. */
export const TRANSPARENCY_WORKLOADS = [
  ['cat', '/etc/motd'],
  ['fork', '2'],
  ['net', '2'],
  ['dd', '2'],
  ['mkdir', '/tmp/z'],
  ['open', '/proc/version'],
];

/** What an unprobed run of a workload did: its output and how often each kernel instruction ran. */
export interface TransparencyOracle {
  readonly output: string;
  /** Executions per kernel-text instruction address. */
  readonly counts: ReadonlyMap<bigint, number>;
  /** Every executed kernel-text instruction, in address order. */
  readonly addresses: readonly bigint[];
  /** The executed function entries. */
  readonly entries: readonly bigint[];
}

/** The oracle: an unprobed run, stepped instruction by instruction, counting kernel-text executions. */
export function transparencyOracle(argv: string[]): TransparencyOracle {
  const { m } = bootWithKprobes();
  const counts = new Map<bigint, number>();
  const { _stext, _etext } = m.kernel.image.symbols;
  m.kernel.stepHook = (_cpu, rip) => {
    if (rip >= _stext && rip < _etext) counts.set(rip, (counts.get(rip) ?? 0) + 1);
  };
  const output = run(m, argv);
  const entries = [...counts.keys()].filter((a) => m.kallsyms.lookup(a)?.offset === 0);
  return { output, counts, addresses: [...counts.keys()].sort((a, b) => (a < b ? -1 : 1)), entries };
}

/**
 * Runs workload `argv` with a no-op kretprobe at `at` (after `prepare`, e.g. running the optimizer)
 * and checks it changes nothing and returns once per entry the oracle `o` saw: returns + instances
 * flushed when their task died (calls that never return, such as do_exit) = entries, none left in
 * flight. Returns the kprobes, or undefined when `at` is in the blacklisted syscall entry.
 */
export function checkKretprobeTransparency(
  o: TransparencyOracle,
  argv: string[],
  at: bigint,
  prepare: (k: Kprobes) => void = () => {},
): Kprobes | undefined {
  const { m, k } = bootWithKprobes();
  let returns = 0;
  let flushed = 0;
  k.events$.subscribe((e) => {
    if (e.type === 'kretprobe:flushed') flushed++;
  });
  try {
    k.registerKretprobe({ kp: { addr: at }, maxactive: 64, handler: () => returns++ });
  } catch (e) {
    if (m.kallsyms.lookup(at)?.sym.name === 'entry_SYSCALL_64') return undefined;
    throw e;
  }
  prepare(k);
  expect(run(m, argv), m.kallsyms.format(at)).toBe(o.output);
  expect(returns + flushed, m.kallsyms.format(at)).toBe(o.counts.get(at));
  expect(kprobesCore(k).kretprobes.activeInstances, m.kallsyms.format(at)).toBe(0);
  return k;
}
