const STAR = 0x2a;
const QUESTION = 0x3f;
const OPEN = 0x5b;
const CLOSE = 0x5d;
const BANG = 0x21;
const DASH = 0x2d;
const BACKSLASH = 0x5c;

/**
 * Shell-style glob over bytes, without allocating: `*` (any run), `?` (one byte), `[...]` classes
 * with ranges and a leading `!` to invert (a malformed class is a literal `[`), `\` escapes the next
 * byte. `str[start, end)` is the subject.
 *
 * @see lib/glob.c glob_match()
 * @example
 * globMatch(new TextEncoder().encode('ba?h'), bytes, 0, bytes.length);
 */
export function globMatch(pat: Uint8Array, str: Uint8Array, start: number, end: number): boolean {
  let p = 0;
  let s = start;
  let starP = -1;
  let starS = 0;
  for (;;) {
    if (p < pat.length) {
      const d = pat[p];
      if (d === STAR) {
        p++;
        starP = p;
        starS = s;
        continue;
      }
      if (s < end) {
        const c = str[s];
        if (d === QUESTION) {
          p++;
          s++;
          continue;
        }
        if (d === OPEN) {
          const after = matchClass(pat, p + 1, c);
          if (after > 0) {
            p = after;
            s++;
            continue;
          }
          if (after < 0 && c === OPEN) {
            p++;
            s++;
            continue;
          }
        } else if (d === BACKSLASH && p + 1 < pat.length) {
          if (c === pat[p + 1]) {
            p += 2;
            s++;
            continue;
          }
        } else if (c === d) {
          p++;
          s++;
          continue;
        }
      }
    } else if (s >= end) {
      return true;
    }
    // Mismatch: let the last `*` swallow one more byte and retry, if there is one to swallow.
    if (starP < 0 || starS >= end) return false;
    starS++;
    s = starS;
    p = starP;
  }
}

/** Matches byte `c` against the class starting at `pat[p]` (after `[`): the index after `]` on match, 0 on no match, -1 if malformed. */
function matchClass(pat: Uint8Array, p: number, c: number): number {
  const inverted = pat[p] === BANG;
  if (inverted) p++;
  let matched = false;
  let first = true;
  for (;;) {
    if (p >= pat.length) return -1;
    const a = pat[p];
    if (a === CLOSE && !first) {
      p++;
      break;
    }
    first = false;
    let b = a;
    if (pat[p + 1] === DASH && p + 2 < pat.length && pat[p + 2] !== CLOSE) {
      b = pat[p + 2];
      p += 3;
    } else {
      p++;
    }
    if (a <= c && c <= b) matched = true;
  }
  return matched !== inverted ? p : 0;
}
