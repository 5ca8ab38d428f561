/** The deepest nesting of arrays and objects a log line may have (real entries nest 3 deep). */
export const MAX_JSON_DEPTH = 32;

/**
 * How deeply the arrays and objects of a JSON text nest, counted without recursion (brackets inside
 * strings do not count), stopping as soon as `limit` is passed. Checked before `JSON.parse`, whose
 * reviver recurses and would overflow the stack on a crafted line.
 */
export function jsonDepthExceeds(json: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
