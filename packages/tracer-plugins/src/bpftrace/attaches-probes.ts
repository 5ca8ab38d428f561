import { BpftraceError } from './bpftrace-error.js';
import { parseProgram } from './parser.js';

/**
 * Whether a program has probes other than `begin`/`end`, i.e. needs something to run: a program of
 * begin/end probes only runs them and exits, as bpftrace does. A program that does not parse counts
 * as attaching (its error is reported when the tracer starts).
 *
 * @example
 * bpftraceAttachesProbes('begin { printf("hi\\n"); }'); // false
 */
export function bpftraceAttachesProbes(source: string): boolean {
  try {
    return parseProgram(source).probes.some((p) =>
      p.attachPoints.some((a) => a.provider !== 'begin' && a.provider !== 'end'),
    );
  } catch (error) {
    if (error instanceof BpftraceError) return true;
    throw error;
  }
}
