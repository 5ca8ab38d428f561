import { describe, expect, it } from 'vitest';
import { Kallsyms, type KsymInput } from './kallsyms.js';

const T = 0xffffffff81000000n;
const sym = (name: string, off: number, size: number, kind: KsymInput['kind'] = 'text', global = true): KsymInput => ({
  name,
  address: T + BigInt(off),
  size,
  kind,
  global,
});

function kernel(): Kallsyms {
  const ks = new Kallsyms();
  ks.addRegion(undefined, [
    sym('_stext', 0, 0),
    sym('do_sys_open', 0, 0xc2),
    sym('name_show', 0xd0, 0x20, 'text', false),
    sym('vfs_read', 0x100, 0x40),
    sym('name_show', 0x140, 0x10, 'text', false),
    sym('linux_proc_banner', 0x2000, 0x40, 'rodata'),
    sym('.L42', 0x10, 0),
    sym('', 0x20, 0),
  ]);
  return ks;
}

describe(Kallsyms, () => {
  it('should size a symbol up to the next symbol, as kallsyms_lookup_size_offset does', () => {
    const ks = kernel();
    expect(ks.format(T + 0x10n)).toBe('do_sys_open+0x10/0xd0');
    expect(ks.format(T + 0x100n)).toBe('vfs_read+0x0/0x40');
    expect(ks.format(T + 0x145n)).toBe('name_show+0x5/0x10');
  });

  it('should prefer a named symbol over a zero-size alias at the same address', () => {
    expect(kernel().lookup(T)?.sym.name).toBe('do_sys_open');
  });

  it('should report duplicate names and look them up in address order', () => {
    const ks = kernel();
    expect(ks.duplicates()).toEqual(['name_show']);
    expect(ks.lookupAll('name_show').map((s) => s.address)).toEqual([T + 0xd0n, T + 0x140n]);
    expect(ks.lookupName('name_show')?.type).toBe('t');
  });

  it('should drop local labels and unnamed symbols', () => {
    expect(kernel().lookupName('.L42')).toBeUndefined();
    expect(
      kernel()
        .all()
        .some((s) => s.name === ''),
    ).toBe(false);
  });

  it('should print addresses outside any symbol as hex', () => {
    expect(kernel().format(0x1234n)).toBe('0x1234');
    expect(kernel().format(T + 0x150n)).toBe('0xffffffff81000150');
  });

  it('should qualify module symbols with [module] and resolve mod:name', () => {
    const ks = kernel();
    const M = 0xffffffffa0000000n;
    ks.addRegion('kprobe_example', [{ name: 'handler_pre', address: M, size: 0x30, kind: 'text', global: false }]);
    expect(ks.format(M + 4n)).toBe('handler_pre+0x4/0x30 [kprobe_example]');
    expect(ks.lookupName('kprobe_example:handler_pre')?.address).toBe(M);
    expect(ks.lookupName('other:handler_pre')).toBeUndefined();
    ks.removeRegion('kprobe_example');
    expect(ks.lookupName('handler_pre')).toBeUndefined();
  });
});
