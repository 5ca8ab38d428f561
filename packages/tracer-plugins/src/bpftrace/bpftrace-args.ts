import type { BpftraceFormat } from './bpftrace-program.js';

/** The bpftrace tracer's arguments: `[-f text|json] PROGRAM`. */
export interface BpftraceArgs {
  readonly format: BpftraceFormat;
  readonly source: string;
}

/** Parses the tracer's arguments; the program is the last one. */
export function parseBpftraceArgs(args: readonly string[]): BpftraceArgs {
  let format: BpftraceFormat = 'text';
  let source: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '-f') {
      const f = args[++i];
      if (f !== 'text' && f !== 'json') throw new Error(`Invalid output format "${f ?? ''}"`);
      format = f;
    } else if (source === undefined) source = a;
    else throw new Error(`unexpected argument '${a}': give the program as one argument`);
  }
  if (source === undefined)
    throw new Error("no program given: bpftrace [-f text|json] 'kprobe:vfs_read { @[comm] = count(); }'");
  return { format, source };
}
