import { parseProbeCommand } from './parse-probe-command.js';
import type { ProbeCommand, ProbeRemoval, ProbeResolver } from './probe-definition.js';
import { ProbeParseError } from './probe-parse-error.js';
import type { ProbeParseResult } from './probe-parse-result.js';
import { argvSplit } from './split-command-lines.js';

function rejectRemoval(argv: readonly string[]): ProbeParseResult<ProbeCommand> {
  return { ok: false, error: new ProbeParseError(undefined, 'EINVAL', argv, { index: 0, offset: 0 }) };
}

/**
 * Parses a `-:[GRP/][EVENT] [SYM|SYM+OFFS|0xADDR [NAME=ARG...]]` removal line (already known to
 * start with `-`). Errors here are not logged.
 *
 * @see kernel/trace/trace_dynevent.c dyn_event_release()
 */
export function parseProbeRemoval(argv: readonly string[]): ProbeParseResult<ProbeCommand> {
  if (argv[0][1] !== ':') return rejectRemoval(argv);
  const name = argv[0].slice(2);
  const slash = name.indexOf('/');
  const group = slash >= 0 ? name.slice(0, slash) : undefined;
  const event = slash >= 0 ? name.slice(slash + 1) : name;
  if (group === undefined && event === '') return rejectRemoval(argv);
  const removal: ProbeRemoval = Object.freeze({ group, event, args: Object.freeze(argv.slice(1)) });
  return { ok: true, value: Object.freeze({ type: 'remove', removal }) };
}

/**
 * Parses one `kprobe_events` line (comment already removed). A line whose first character is `-`
 * is a removal; a blank line gives `undefined` (a no-op). A leading space before `-` makes it a
 * definition with a bad type letter, as in the kernel.
 *
 * @see kernel/trace/trace_kprobe.c create_or_delete_trace_kprobe()
 */
export function parseProbeLine(line: string, resolver: ProbeResolver): ProbeParseResult<ProbeCommand> | undefined {
  const argv = argvSplit(line);
  if (argv.length === 0) return undefined;
  if (line[0] === '-') return parseProbeRemoval(argv);
  const r = parseProbeCommand(argv, resolver);
  return r.ok ? { ok: true, value: Object.freeze({ type: 'define', definition: r.value }) } : r;
}
