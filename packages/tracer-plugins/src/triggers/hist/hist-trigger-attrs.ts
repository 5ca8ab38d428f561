import { kstrtoul } from '../../probe-events/kstrto.js';
import { TraceFsError } from '../../tracefs/trace-fs-error.js';
import type { HistErrorCode } from './hist-errors.js';

/** The smallest and largest `size=` as map bits, and the default (2048 entries). @see kernel/trace/tracing_map.h */
export const TRACING_MAP_BITS_MIN = 7;
export const TRACING_MAP_BITS_MAX = 17;
export const TRACING_MAP_BITS_DEFAULT = 11;

/** A hist trigger's `:`-separated attributes. @see kernel/trace/trace_events_hist.c struct hist_trigger_attrs */
export interface HistTriggerAttrs {
  keys?: string;
  vals?: string;
  sort?: string;
  /** `name=NAME` as written (the kernel keeps the `name=`). */
  name?: string;
  mapBits?: number;
  pause: boolean;
  cont: boolean;
  clear: boolean;
  noHitcount: boolean;
}

/** Reports a hist error to `error_log`, the caret at the first occurrence of `at` (0 without one). */
export type HistErr = (code: HistErrorCode, at?: string) => void;

function fail(message: string): never {
  throw new TraceFsError('EINVAL', `hist: ${message}`);
}

/** `size=N`: rounded up to a power of two, 128 to 131072 entries. @see parse_map_size() */
function parseMapSize(text: string): number {
  const n = kstrtoul(text, 0);
  if (n === undefined || n === 0n) fail(`bad size '${text}'`);
  let bits = 0;
  while (1n << BigInt(bits) < n) bits++;
  if (bits < TRACING_MAP_BITS_MIN || bits > TRACING_MAP_BITS_MAX) fail(`size ${text} is out of range (128 to 131072)`);
  return bits;
}

/**
 * Splits a hist trigger at `:` into its attributes: `key(s)=`, `val(s)=`/`values=`, `sort=`, `size=`,
 * `name=`, `clock=` (accepted, `global` only), `pause`, `cont`/`continue`, `clear`, `nohitcount`/`NOHC`.
 * Variables (`x=expr`) and actions (`onmax(…)`) are not supported here and are EINVAL; so is a missing
 * `keys=`.
 *
 * @see kernel/trace/trace_events_hist.c parse_hist_trigger_attrs(), parse_assignment()
 */
export function parseHistTriggerAttrs(text: string, err: HistErr): HistTriggerAttrs {
  const attrs: HistTriggerAttrs = { pause: false, cont: false, clear: false, noHitcount: false };
  for (const str of text.split(':')) {
    const eq = str.indexOf('=');
    if (eq >= 0) {
      if (eq === str.length - 1) {
        err('EMPTY_ASSIGNMENT', str);
        fail(`empty assignment '${str}'`);
      }
      const rhs = str.slice(eq + 1);
      const lhs = str.slice(0, eq);
      if (lhs === 'key' || lhs === 'keys') attrs.keys = rhs;
      else if (lhs === 'val' || lhs === 'vals' || lhs === 'values') attrs.vals = rhs;
      else if (lhs === 'sort') attrs.sort = rhs;
      else if (lhs === 'name') attrs.name = str;
      else if (lhs === 'clock') {
        if (rhs.trim() !== 'global') fail(`clock '${rhs}': int3 has the global clock only`);
      } else if (lhs === 'size') attrs.mapBits = parseMapSize(rhs);
      else fail(`variables are not supported ('${str}')`);
    } else if (str === 'nohitcount' || str === 'NOHC') attrs.noHitcount = true;
    else if (str === 'pause') attrs.pause = true;
    else if (str === 'cont' || str === 'continue') attrs.cont = true;
    else if (str === 'clear') attrs.clear = true;
    else fail(`unknown attribute '${str}'`);
  }
  if (attrs.keys === undefined) fail('keys= is required');
  return attrs;
}
