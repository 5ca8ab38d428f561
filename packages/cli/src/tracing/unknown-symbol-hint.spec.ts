import { Kallsyms } from '@int3/kernel';
import { describe, expect, it } from 'vitest';
import { unknownSymbolHint } from './unknown-symbol-hint.js';

const ks = new Kallsyms();
ks.addRegion(undefined, [
  { name: 'do_sys_open', address: 0xffffffff81001000n, size: 0x40, kind: 'text', global: true },
  { name: 'do_sys_openat2', address: 0xffffffff81001040n, size: 0x40, kind: 'text', global: true },
  { name: 'sys_mkdir', address: 0xffffffff81001080n, size: 0x40, kind: 'text', global: true },
  { name: 'do_sys_opened', address: 0xffffffff81002000n, size: 8, kind: 'data', global: true },
]);

describe(unknownSymbolHint, () => {
  it('should name an unknown symbol and the nearest functions', () => {
    expect(unknownSymbolHint(ks, 'p:open do_sys_opn dfd=%di')).toBe(
      "; unknown symbol 'do_sys_opn', did you mean do_sys_open, do_sys_openat2?",
    );
    expect(unknownSymbolHint(ks, 'r:ret sys_mkdr+4 $retval')).toBe(
      "; unknown symbol 'sys_mkdr', did you mean sys_mkdir?",
    );
    expect(unknownSymbolHint(ks, 'p mymod:frobnicate')).toBe("; unknown symbol 'frobnicate'");
  });

  it('should say nothing for a known symbol, an offset into one, or an address', () => {
    expect(unknownSymbolHint(ks, 'p:open do_sys_open')).toBe('');
    expect(unknownSymbolHint(ks, 'r sys_mkdir%return')).toBe('');
    expect(unknownSymbolHint(ks, 'p do_sys_open+4')).toBe('');
    expect(unknownSymbolHint(ks, 'p 0xffffffff81001000')).toBe('');
    expect(unknownSymbolHint(ks, '-:open')).toBe('');
  });
});
