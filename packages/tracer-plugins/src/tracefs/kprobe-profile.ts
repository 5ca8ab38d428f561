import type { TraceKprobe } from './trace-kprobe.js';

/**
 * The `kprobe_profile` file: per probe, `"  %-44s %15lu %15lu\n"` with the event name, the hits and
 * the misses (kprobe nmissed, plus kretprobe nmissed for return probes).
 *
 * @see kernel/trace/trace_kprobe.c probes_profile_seq_show()
 * @example kprobeProfile(probes) // '  myevent                                            3               0\n'
 */
export function kprobeProfile(probes: readonly TraceKprobe[]): string {
  return probes
    .map((p) => `  ${p.def.event.padEnd(44)} ${String(p.nhit).padStart(15)} ${String(p.nmissed).padStart(15)}\n`)
    .join('');
}
