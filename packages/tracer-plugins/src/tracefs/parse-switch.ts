import { TraceFsError } from './trace-fs-error.js';

/**
 * Parses a number written to a tracefs control file (`echo 1 > enable`): decimal, `0x` hex or `0`
 * octal, surrounding whitespace ignored; anything else is EINVAL.
 *
 * @see lib/kstrtox.c kstrtoul_from_user()
 */
export function parseUlong(text: string, what: string): number {
  const t = text.trim();
  let n: number;
  if (/^0[xX][0-9a-fA-F]+$/.test(t)) n = Number.parseInt(t.slice(2), 16);
  else if (/^0[0-7]+$/.test(t)) n = Number.parseInt(t, 8);
  else if (/^(0|[1-9][0-9]*)$/.test(t))
    n = Number(t); // kstrtoul(base 0) refuses 08 and 09
  else throw new TraceFsError('EINVAL', `${what}: expected a number, got ${JSON.stringify(text)}`);
  return n;
}

/**
 * Parses an event `enable` write: `0` or `1` only.
 *
 * @see kernel/trace/trace_events.c event_enable_write()
 */
export function parseEnable(text: string, what: string): boolean {
  const n = parseUlong(text, what);
  if (n !== 0 && n !== 1) throw new TraceFsError('EINVAL', `${what}: write 0 or 1, got ${n}`);
  return n === 1;
}
