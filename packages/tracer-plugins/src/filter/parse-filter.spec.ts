import { describe, expect, it } from 'vitest';
import type { FilterErrorCode } from './filter-error.js';
import { FIELDS } from './filter-fields.fixture.js';
import { parseFilter } from './parse-filter.js';

/** `'nosuch ^== 1'` → the text without `^`, and the caret's index. */
function caret(s: string): { text: string; pos: number } {
  return { text: s.replace('^', ''), pos: s.indexOf('^') };
}

describe(parseFilter, () => {
  it.each([
    'common_pid == 42',
    'dfd < 0 && mode == 7',
    '(dfd >= -1 || big > 0x10) && !(flags & 4)',
    '!!(mode <= 010)',
    'filename ~ "/etc/*"',
    'comm == "bash"',
    "comm != 'sh'",
    '__probe_ip == 0xffffffff81000000',
    'sbig == -9223372036854775808',
    'mode == 1 &&',
    '  mode==1||mode==2  ',
  ])('should accept %j', (text) => {
    expect(parseFilter(text, FIELDS).ok).toBe(true);
  });

  it.each<[string, FilterErrorCode]>([
    ['nosuch ^== 1', 'FIELD_NOT_FOUND'],
    ['mode == 1 && nosuch ^> 2', 'FIELD_NOT_FOUND'],
    ['mode =^< 1', 'INVALID_OP'],
    ['mode == "^x"', 'EXPECT_DIGIT'],
    ['filename == 3^', 'EXPECT_STRING'],
    ['filename < "^a"', 'ILLEGAL_FIELD_OP'],
    ['mode ~ 3^', 'ILLEGAL_FIELD_OP'],
    ['arr == 1^', 'ILLEGAL_FIELD_OP'],
    ['mode == a^bc', 'INVALID_VALUE'],
    ['mode == 0^x', 'ILLEGAL_INTVAL'],
    ['mode == 0^9', 'ILLEGAL_INTVAL'],
    ['flags == -^1', 'ILLEGAL_INTVAL'],
    ['big == 1^8446744073709551616', 'ILLEGAL_INTVAL'],
    ['mode == 123456789012345678901234^', 'OPERAND_TOO_LONG'],
    ['mode == 1 ^mode == 2', 'TOO_MANY_PREDS'],
    ['mode == 1 ^& mode == 2', 'TOO_MANY_PREDS'],
    ['(mode == 1) ^(mode == 2)', 'TOO_MANY_PREDS'],
    ['^(mode == 1', 'TOO_MANY_OPEN'],
    ['(mode == 1) && ^(mode == 2', 'TOO_MANY_OPEN'],
    ['mode == 1^)', 'TOO_MANY_CLOSE'],
    ['comm == ^"bash', 'MISSING_QUOTE'],
  ])('should reject %j with %s at the caret', (withCaret, code) => {
    const { text, pos } = caret(withCaret);
    const result = parseFilter(text, FIELDS);
    if (result.ok) throw new Error(`accepted ${text}`);
    expect(result.error.code).toBe(code);
    expect(result.error.errno).toBe('EINVAL');
    // The kernel may point past the end; its read-back clamps the caret to the text.
    expect(Math.min(result.error.pos, text.length)).toBe(pos);
  });

  it.each(['', '   ', '&& mode == 1', 'mode == 1 && ()', '!= 3'])(
    'should fail %j without a message, as the kernel does (Error: (0))',
    (text) => {
      const result = parseFilter(text, FIELDS);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.code).toBe('NONE');
    },
  );

  it('should cast the value to the field width and sign as the kernel casts pred->val', () => {
    const u8 = parseFilter('mode == 257', FIELDS);
    const s8 = parseFilter('neg == 0xff', FIELDS);
    expect(u8.ok && u8.ast.type === 'int' && u8.ast.value).toBe(1n);
    expect(s8.ok && s8.ast.type === 'int' && s8.ast.value).toBe(-1n);
  });

  it('should bind && tighter than ||', () => {
    const r = parseFilter('mode == 1 || mode == 2 && mode == 3', FIELDS);
    expect(r.ok && r.ast.type).toBe('or');
  });
});

describe('parseFilter on inputs built to exhaust a recursive parser', () => {
  const pred = 'mode == 1';

  it.each([
    ['5,000 nested parentheses', `${'('.repeat(5000)}${pred}${')'.repeat(5000)}`],
    ["10,000 '!'", `${'!'.repeat(10_000)}${pred}`],
    ['a 10,000-term && chain', Array(10_000).fill(pred).join(' && ')],
    ['a 10,000-term || chain of groups', Array(10_000).fill(`(${pred})`).join('||')],
  ])('should parse %s without overflowing the stack', (_name, text) => {
    expect(parseFilter(text, FIELDS).ok).toBe(true);
  });

  it('should fold runs of ! as it parses: an even run is the predicate itself, an odd one a single not', () => {
    const even = parseFilter(`${'!'.repeat(10_000)}${pred}`, FIELDS);
    const odd = parseFilter(`${'!'.repeat(9_999)}(${pred})`, FIELDS);
    expect(even.ok && even.ast.type).toBe('int');
    expect(odd.ok && odd.ast.type === 'not' && odd.ast.operand.type).toBe('int');
  });

  it('should report an error deep inside 5,000 parentheses at its caret', () => {
    const text = `${'('.repeat(5000)}mode == 1 nosuch${')'.repeat(5000)}`;
    const r = parseFilter(text, FIELDS);
    expect(r.ok === false && r.error).toEqual({ code: 'TOO_MANY_PREDS', pos: 5010, errno: 'EINVAL' });
  });
});
