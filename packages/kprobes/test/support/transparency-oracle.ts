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
  const { _stext, _etext } = m.image.symbols;
  m.stepHook = (_cpu, rip) => {
    if (rip >= _stext && rip < _etext) counts.set(rip, (counts.get(rip) ?? 0) + 1);
  };
  const output = run(m, argv);
  const entries = [...counts.keys()].filter((a) => m.kallsyms.lookup(a)?.offset === 0);
  return { output, counts, addresses: [...counts.keys()].sort((a, b) => (a < b ? -1 : 1)), entries };
}
