import { TracerUsageError } from '../plugins/tracer-usage-error.js';
import type { BpftraceFormat } from './bpftrace-program.js';

const USAGE = "usage: bpftrace [-f text|json] 'PROGRAM' (e.g. bpftrace 'kprobe:vfs_read { @[comm] = count(); }')";

/** The bpftrace tracer's arguments: `[-f text|json] PROGRAM`. */
export interface BpftraceArgs {
  readonly format: BpftraceFormat;
  readonly source: string;
}

/**
 * Parses the tracer's arguments; the program is the last one. A mistake in them is the user's: a
 * {@link TracerUsageError} that says how the tracer is called.
 */
export function parseBpftraceArgs(args: readonly string[]): BpftraceArgs {
  let format: BpftraceFormat = 'text';
  let source: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '-f') {
      const f = args[++i];
      if (f !== 'text' && f !== 'json') throw new TracerUsageError(`Invalid output format "${f ?? ''}"; ${USAGE}`);
      format = f;
    } else if (source === undefined) source = a;
    else throw new TracerUsageError(`unexpected argument '${a}': give the program as one argument; ${USAGE}`);
  }
  if (source === undefined) throw new TracerUsageError(`no program given; ${USAGE}`);
  return { format, source };
}
