import type { LogEntry } from './log-codec.js';

/**
 * One field's rule: returns what the value should be (a phrase such as `an integer from 1 to 64`) when
 * it breaks the rule, `undefined` when it holds. Rules are plain functions so other packages describe
 * their inputs with the same words.
 */
export type FieldRule = (value: unknown) => string | undefined;

/** The fields of one entry type: each rule, and whether the field may be absent. */
export interface EntrySchema {
  readonly required: Readonly<Record<string, FieldRule>>;
  readonly optional?: Readonly<Record<string, FieldRule>>;
}

/** The largest integer a log holds as a plain JSON number (times in ns, counts, pids). */
export const MAX_LOG_INTEGER = Number.MAX_SAFE_INTEGER;

/** An integer in `min..max`. */
export function integer(min: number, max: number): FieldRule {
  return (v) =>
    Number.isInteger(v) && (v as number) >= min && (v as number) <= max
      ? undefined
      : `an integer from ${min} to ${max}`;
}

/** A string of at most `maxLength` characters, matching `pattern` when given (described by `what`). */
export function text(maxLength: number, pattern?: RegExp, what?: string): FieldRule {
  return (v) => {
    if (typeof v !== 'string' || v.length > maxLength || (pattern && !pattern.test(v))) {
      return what ?? `a string of at most ${maxLength} characters`;
    }
    return undefined;
  };
}

/** `true` or `false`. */
export const boolean: FieldRule = (v) => (typeof v === 'boolean' ? undefined : 'true or false');

/** A bigint (written `{"$big":"<hex>"}`). */
export const big: FieldRule = (v) => (typeof v === 'bigint' ? undefined : 'a 64-bit value ({"$big":"<hex>"})');

/** A SHA-256 digest in lowercase hex. */
export const sha256Hex: FieldRule = text(64, /^[0-9a-f]{64}$/, 'a SHA-256 digest (64 lowercase hex digits)');

/** An array of `min..max` elements, each following `element` (described by `what`). */
export function arrayOf(element: FieldRule, min: number, max: number, what: string): FieldRule {
  return (v) => {
    if (!Array.isArray(v) || v.length < min || v.length > max) return `an array of ${min} to ${max} ${what}`;
    for (const e of v) if (element(e) !== undefined) return `an array of ${min} to ${max} ${what}`;
    return undefined;
  };
}

/** One of the given values. */
export function oneOf(...values: readonly string[]): FieldRule {
  return (v) => (typeof v === 'string' && values.includes(v) ? undefined : `one of ${values.join(', ')}`);
}

/** A value shown in a message: JSON, so control characters are escaped, and cut to 40 characters. */
export function showValue(v: unknown): string {
  let s: string;
  try {
    s = typeof v === 'bigint' ? `{"$big":"${v.toString(16)}"}` : (JSON.stringify(v) ?? String(v));
  } catch {
    s = String(v);
  }
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}

/**
 * What is wrong with `entry` by `schema`: a missing or ill-typed field, or one the schema does not
 * name (`undefined` when nothing is). The message names the field and says what it should be.
 *
 * @example
 * checkEntry({ type: 'input:rmmod' }, { required: { name: text(255) } });
 * // "input:rmmod needs 'name' (a string of at most 255 characters)"
 */
export function checkEntry(entry: LogEntry, schema: EntrySchema): string | undefined {
  for (const [field, rule] of Object.entries(schema.required)) {
    if (!Object.hasOwn(entry, field)) return `${entry.type} needs '${field}' (${rule(undefined) ?? 'a value'})`;
    const wrong = rule(entry[field]);
    if (wrong !== undefined) return `${entry.type} '${field}' must be ${wrong}, not ${showValue(entry[field])}`;
  }
  for (const [field, rule] of Object.entries(schema.optional ?? {})) {
    if (!Object.hasOwn(entry, field)) continue;
    const wrong = rule(entry[field]);
    if (wrong !== undefined) return `${entry.type} '${field}' must be ${wrong}, not ${showValue(entry[field])}`;
  }
  for (const field of Object.keys(entry)) {
    if (field !== 'type' && !Object.hasOwn(schema.required, field) && !Object.hasOwn(schema.optional ?? {}, field)) {
      return `${entry.type} has no field ${JSON.stringify(field.slice(0, 64))}`;
    }
  }
  return undefined;
}
