/**
 * The amd64 registers int3 describes to gdb, in gdb's register numbering (the order of the `g`
 * packet): the `org.gnu.gdb.i386.core` feature (16 general registers, rip, eflags, six segment
 * selectors, the x87 stack and its eight control registers: 40 registers, 276 bytes) and
 * `org.gnu.gdb.i386.segments` (fs_base, gs_base).
 *
 * @see gdb's manual, "Target Description Format" › "i386 Features"
 */

/** One register of the description. */
export interface Amd64Register {
  readonly name: string;
  readonly bits: 32 | 64 | 80;
  readonly type: string;
  readonly feature: 'core' | 'segments';
  readonly group?: string;
}

const gpr = (name: string, type = 'int64'): Amd64Register => ({ name, bits: 64, type, feature: 'core' });
const seg = (name: string): Amd64Register => ({ name, bits: 32, type: 'int32', feature: 'core' });
const x87 = (name: string): Amd64Register => ({ name, bits: 32, type: 'int', feature: 'core', group: 'float' });

/** gdb's amd64 register numbers: index in {@link AMD64_REGISTERS}. */
export const AMD64_REGISTERS: readonly Amd64Register[] = Object.freeze([
  gpr('rax'),
  gpr('rbx'),
  gpr('rcx'),
  gpr('rdx'),
  gpr('rsi'),
  gpr('rdi'),
  gpr('rbp', 'data_ptr'),
  gpr('rsp', 'data_ptr'),
  ...['r8', 'r9', 'r10', 'r11', 'r12', 'r13', 'r14', 'r15'].map((n) => gpr(n)),
  gpr('rip', 'code_ptr'),
  { name: 'eflags', bits: 32, type: 'i386_eflags', feature: 'core' },
  ...['cs', 'ss', 'ds', 'es', 'fs', 'gs'].map(seg),
  ...[0, 1, 2, 3, 4, 5, 6, 7].map(
    (i): Amd64Register => ({ name: `st${i}`, bits: 80, type: 'i387_ext', feature: 'core' }),
  ),
  ...['fctrl', 'fstat', 'ftag', 'fiseg', 'fioff', 'foseg', 'fooff', 'fop'].map(x87),
  { name: 'fs_base', bits: 64, type: 'int', feature: 'segments' },
  { name: 'gs_base', bits: 64, type: 'int', feature: 'segments' },
]);

/** Register number of a name (`rip` → 16). */
export function amd64RegisterNumber(name: string): number {
  const n = AMD64_REGISTERS.findIndex((r) => r.name === name);
  if (n < 0) throw new Error(`no amd64 register ${name}`);
  return n;
}

const EFLAGS_TYPE = `<flags id="i386_eflags" size="4">
<field name="CF" start="0" end="0"/><field name="" start="1" end="1"/><field name="PF" start="2" end="2"/>
<field name="AF" start="4" end="4"/><field name="ZF" start="6" end="6"/><field name="SF" start="7" end="7"/>
<field name="TF" start="8" end="8"/><field name="IF" start="9" end="9"/><field name="DF" start="10" end="10"/>
<field name="OF" start="11" end="11"/><field name="NT" start="14" end="14"/><field name="RF" start="16" end="16"/>
<field name="VM" start="17" end="17"/><field name="AC" start="18" end="18"/><field name="VIF" start="19" end="19"/>
<field name="VIP" start="20" end="20"/><field name="ID" start="21" end="21"/>
</flags>`;

function registerXml(r: Amd64Register, regnum: number): string {
  const group = r.group ? ` group="${r.group}"` : '';
  return `<reg name="${r.name}" bitsize="${r.bits}" type="${r.type}" regnum="${regnum}"${group}/>`;
}

/** The target description gdb reads with `qXfer:features:read:target.xml`. */
export function amd64TargetXml(): string {
  const feature = (name: string, which: Amd64Register['feature'], extra = '') =>
    `<feature name="${name}">\n${extra}${AMD64_REGISTERS.map((r, i) => (r.feature === which ? `${registerXml(r, i)}\n` : '')).join('')}</feature>\n`;
  return (
    '<?xml version="1.0"?>\n<!DOCTYPE target SYSTEM "gdb-target.dtd">\n<target version="1.0">\n' +
    '<architecture>i386:x86-64</architecture>\n' +
    feature('org.gnu.gdb.i386.core', 'core', `${EFLAGS_TYPE}\n`) +
    feature('org.gnu.gdb.i386.segments', 'segments') +
    '</target>\n'
  );
}
