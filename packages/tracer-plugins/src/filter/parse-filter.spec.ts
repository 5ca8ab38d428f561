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
