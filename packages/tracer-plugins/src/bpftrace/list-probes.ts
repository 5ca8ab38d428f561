import type { Kallsyms } from '@int3/kernel';
import { matchFunctions } from './match-functions.js';

/**
 * What `bpftrace -l [GLOB]` prints for kprobes: one `kprobe:NAME` line per kernel function, in name
 * order; a glob with a `kprobe:`/`k:` prefix (or none) filters the names.
 *
 * @see bpftrace src/probe_matcher.cpp ProbeMatcher::list_probes()
 * @example
 * listBpftraceProbes(m.kallsyms, 'kprobe:vfs_*'); // "kprobe:vfs_read\nkprobe:vfs_write\n…"
 */
export function listBpftraceProbes(kallsyms: Kallsyms, glob = '*'): string {
  const pattern = glob.replace(/^(kprobe|k):/, '');
  if (pattern.includes(':')) return '';
  const names = matchFunctions(kallsyms, pattern === '' ? '*' : pattern).sort();
  return names.map((n) => `kprobe:${n}\n`).join('');
}
