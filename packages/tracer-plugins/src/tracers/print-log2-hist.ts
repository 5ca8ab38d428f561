import type { Log2Histogram } from './log2-histogram.js';

/** Width of the distribution column, as bcc's `stars_max`. */
const STARS_MAX = 40;

/**
 * ⌊width × val / max⌋ stars (at most `width`): bcc's `_stars` adds a star while its index is at most
 * `width × val / max − 1`.
 */
function stars(val: number, max: number, width: number): string {
  if (max === 0) return '';
  return '*'.repeat(Math.min(width, Math.floor((width * val) / max)));
}

/**
 * Renders a log2 histogram the way bcc's `print_log2_hist` does: a `<valType> : count distribution`
 * header, one `low -> high : count |****|` row per slot from 1 up to the highest non-empty one,
 * 10-digit columns (20 beyond slot 32, with half-width bars). Slot 0 (the value 0) is shown in the
 * first row, `0 -> 1`.
 *
 * @see bcc src/python/bcc/table.py _print_log2_hist()
 * @example
 * printLog2Hist(h, 'nsecs');
 * // '     nsecs               : count     distribution\n         0 -> 1          : 0        |      |…'
 */
export function printLog2Hist(h: Log2Histogram, valType: string): string {
  const vals = Array.from(h.slots);
  vals[1] += vals[0];
  let idxMax = 0;
  let valMax = 0;
  for (let i = 1; i < vals.length; i++) {
    if (vals[i] > 0) idxMax = i;
    if (vals[i] > valMax) valMax = vals[i];
  }
  if (idxMax === 0) return '';
  const wide = idxMax > 32;
  const w = wide ? 20 : 10;
  const width = wide ? STARS_MAX / 2 : STARS_MAX;
  const header = wide
    ? `               ${valType.padEnd(29)} : count     distribution`
    : `     ${valType.padEnd(19)} : count     distribution`;
  const lines = [header];
  for (let i = 1; i <= idxMax; i++) {
    let low = 2 ** i / 2;
    const high = 2 ** i - 1;
    if (low === high) low -= 1;
    const val = vals[i];
    const bar = stars(val, valMax, width).padEnd(width);
    lines.push(`${String(low).padStart(w)} -> ${String(high).padEnd(w)} : ${String(val).padEnd(8)} |${bar}|`);
  }
  return `${lines.join('\n')}\n`;
}
