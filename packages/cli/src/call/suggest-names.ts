/**
 * Up to `limit` names from `candidates` that look like a mistyped `wanted`: a small edit distance to
 * the whole name, then names containing it, then names whose beginning is a small edit away from it
 * (`sort_quik` -> `sort_quick_i64`). Closest first.
 *
 * @example
 * suggestNames('sort_quik', ['sort_quick_i64', 'hash_crc32']); // ['sort_quick_i64']
 */
export function suggestNames(wanted: string, candidates: Iterable<string>, limit = 3): string[] {
  const threshold = Math.max(2, Math.floor(wanted.length / 3));
  const scored: [number, string][] = [];
  for (const name of candidates) {
    const contains = wanted.length >= 3 && (name.includes(wanted) || wanted.includes(name));
    const distance = editDistance(wanted, name, threshold);
    const lengthTie = Math.abs(name.length - wanted.length) / 1000;
    if (distance <= threshold) scored.push([distance, name]);
    else if (contains) scored.push([threshold + 1 + lengthTie, name]);
    else if (wanted.length >= 5) {
      const prefixThreshold = Math.floor(wanted.length / 4);
      const prefix = Math.min(
        ...[-1, 0, 1].map((d) => editDistance(wanted, name.slice(0, wanted.length + d), prefixThreshold)),
      );
      if (prefix <= prefixThreshold) scored.push([threshold + 2 + prefix + lengthTie, name]);
    }
  }
  scored.sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : 1));
  return scored.slice(0, limit).map(([, name]) => name);
}

/** Levenshtein distance, giving up (returning `cap + 1`) once it must exceed `cap`. */
function editDistance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      rowMin = Math.min(rowMin, current[j]);
    }
    if (rowMin > cap) return cap + 1;
    previous = current;
  }
  return previous[b.length];
}
