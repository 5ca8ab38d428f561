import { formatPointer } from './default-event-name.js';
import type { ProbeDefinition } from './probe-definition.js';

/**
 * The probe's place as read-back and removal matching print it: `0x<addr>`, `SYM+<decimal off>`, or `SYM`.
 *
 * @see kernel/trace/trace_kprobe.c trace_kprobe_match_command_head()
 */
export function probeCommandHead(def: ProbeDefinition): string {
  if (def.symbol === undefined) return formatPointer(def.address ?? 0n);
  return def.offset ? `${def.symbol}+${def.offset}` : def.symbol;
}

/**
 * One `kprobe_events` read-back line: `p|r[maxactive]:GRP/EVENT <place> NAME=ARG...`. A `%return`
 * probe reads back as `r`. `maxactive` is the registered value (the kernel shows the default it
 * picked for an `r` without one); it defaults to the definition's.
 *
 * @see kernel/trace/trace_kprobe.c trace_kprobe_show()
 * @example traceKprobeShow(def) // 'p:kprobes/myprobe do_sys_open dfd=%di\n'
 */
export function traceKprobeShow(def: ProbeDefinition, maxactive = def.maxactive): string {
  const max = def.kind === 'r' && maxactive ? String(maxactive) : '';
  const args = def.args.map((a) => ` ${a.name}=${a.comm}`).join('');
  return `${def.kind}${max}:${def.group}/${def.event} ${probeCommandHead(def)}${args}\n`;
}

/**
 * Whether a `-:` removal request selects this probe: event name (empty matches all), group if given,
 * then, when words follow, the place and the leading `NAME=ARG` pairs.
 *
 * @see kernel/trace/trace_kprobe.c trace_kprobe_match()
 * @see kernel/trace/trace_probe.c trace_probe_match_command_args()
 */
export function matchesRemoval(
  def: ProbeDefinition,
  removal: { readonly group: string | undefined; readonly event: string; readonly args: readonly string[] },
): boolean {
  if (removal.event !== '' && removal.event !== def.event) return false;
  if (removal.group !== undefined && removal.group !== def.group) return false;
  if (removal.args.length === 0) return true;
  if (removal.args[0] !== probeCommandHead(def)) return false;
  const rest = removal.args.slice(1);
  if (def.args.length < rest.length) return false;
  return rest.every((w, i) => w === `${def.args[i].name}=${def.args[i].comm}`);
}
