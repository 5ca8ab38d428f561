import { BpftraceError, formatBpftraceError, PluginError, type TracerHost } from '@int3/tracer-plugins';
import { CliError } from '../cli-error.js';
import { escapeControls } from '../runtime/escape-controls.js';

/** A bpftrace program and how to print it. */
export interface BpftraceSpec {
  readonly source: string;
  /** The name errors give the source: `stdin` for `-e`, else the file. */
  readonly filename: string;
  readonly format: 'text' | 'json';
}

/** Where a program's output goes as it comes: its data (stdout, or `-o`'s file) and its diagnostics. */
export interface BpftraceWriter {
  stdout(text: string): void;
  stderr(text: string): void;
}

/**
 * Starts the bpftrace tracer of `host` with a program. Mistakes in it (or an attach point that
 * matches nothing) are a failure (exit 1) printed as bpftrace prints them: `int3: stdin:1:12-18:
 * ERROR: …`, then the source line and the `~` underline, and the further mistakes after it.
 *
 * @see bpftrace src/main.cpp (errors exit 1)
 */
export function startBpftrace(host: TracerHost, spec: BpftraceSpec, command: string): void {
  try {
    host.start('bpftrace', ['-f', spec.format, spec.source]);
  } catch (error) {
    const cause = error instanceof PluginError ? error.cause : error;
    if (cause instanceof BpftraceError) {
      const [first, ...rest] = formatBpftraceError(cause, spec.source, spec.filename).trimEnd().split('\n');
      throw new CliError('failure', first, command, rest.length > 0 ? rest.join('\n') : undefined);
    }
    if (error instanceof PluginError) throw new CliError('usage', error.message.replace(/^.*threw: /, ''), command);
    throw error;
  }
}

/**
 * Writes what the bpftrace tracer printed since the last call (control characters escaped: it may
 * hold guest strings) and returns the exit status the program asked for with `exit()`, or undefined
 * while it has not exited. Called between slices of a run, so `printf` lines appear as they come and
 * an interrupted run loses none, and once more after the tracer stopped (its `end` probes and maps).
 *
 * @example
 * const code = pumpBpftrace(host, { stdout: (s) => writeOut(cmd, s), stderr: env.writeErr });
 */
export function pumpBpftrace(host: TracerHost, writer: BpftraceWriter): number | undefined {
  const out = host.drain('bpftrace');
  if (out.stderr.length > 0) writer.stderr(escapeControls(out.stderr));
  if (out.stdout.length > 0) writer.stdout(escapeControls(out.stdout));
  return out.exit;
}
