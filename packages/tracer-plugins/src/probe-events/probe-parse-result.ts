import { ProbeParseError } from './probe-parse-error.js';

/** A parser outcome: the value, or the error the write fails with. */
export type ProbeParseResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: ProbeParseError };

/** Runs a parser that raises {@link ProbeParseError}s internally and returns its outcome as a value. */
export function catchProbeParseError<T>(parse: () => T): ProbeParseResult<T> {
  try {
    return { ok: true, value: parse() };
  } catch (e) {
    if (e instanceof ProbeParseError) return { ok: false, error: e };
    throw e;
  }
}
