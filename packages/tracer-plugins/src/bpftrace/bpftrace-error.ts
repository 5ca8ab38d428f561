import type { SourceLocation } from './source-location.js';

/**
 * A mistake in a bpftrace program, found while parsing or checking it: bpftrace's message and the
 * text it is about. {@link formatBpftraceError} renders it as bpftrace prints it.
 *
 * @see bpftrace src/log.cpp Log::take_input()
 */
export class BpftraceError extends Error {
  constructor(
    message: string,
    readonly location: SourceLocation | undefined,
    /** The further mistakes the same check found, in source order (bpftrace reports them all). */
    readonly also: readonly BpftraceError[] = [],
  ) {
    super(message);
    this.name = 'BpftraceError';
  }
}

/**
 * `stdin:1:12-18: ERROR: message`, then the source line (tabs as four spaces) and a `~` under the
 * offending text, as bpftrace prints a located error; a span over several lines prints them all and
 * no underline; an error without a location is `ERROR: message`. The errors in its `also` follow.
 *
 * @see bpftrace src/ast/location.cpp SourceLocation::source_location(), source_context()
 * @example
 * formatBpftraceError(new BpftraceError("Unknown identifier: 'fake'", loc), 'kprobe:f { fake }');
 * // "stdin:1:12-16: ERROR: Unknown identifier: 'fake'\nkprobe:f { fake }\n           ~~~~\n"
 */
export function formatBpftraceError(error: BpftraceError, source: string, filename = 'stdin'): string {
  let out = formatOne(error, source, filename);
  for (const more of error.also) out += formatOne(more, source, filename);
  return out;
}

function formatOne(error: BpftraceError, source: string, filename: string): string {
  const loc = error.location;
  if (loc === undefined) return `ERROR: ${error.message}\n`;
  const lines = source.split('\n');
  if (loc.line !== loc.endLine) {
    let out = `${filename}:${loc.line}-${loc.endLine}: ERROR: ${error.message}\n`;
    for (let i = loc.line; i <= loc.endLine && i <= lines.length; i++) out += `${lines[i - 1]}\n`;
    return out;
  }
  let out = `${filename}:${loc.line}:${loc.column}-${loc.endColumn}: ERROR: ${error.message}\n`;
  const src = lines[loc.line - 1];
  if (src === undefined) return out;
  out += `${src.replace(/\t/g, '    ')}\n`;
  let mark = '';
  for (let x = 0; x < src.length && x < loc.endColumn - 1; x++) {
    const c = x < loc.column - 1 ? ' ' : '~';
    mark += src[x] === '\t' ? c.repeat(4) : c;
  }
  return `${out}${mark}\n`;
}
