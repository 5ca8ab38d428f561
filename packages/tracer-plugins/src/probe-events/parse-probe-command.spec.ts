import { describe, expect, it } from 'vitest';
import { parseProbeCommand } from './parse-probe-command.js';
import type { ProbeResolver } from './probe-definition.js';
import type { ProbeErrorCode } from './probe-errors.js';
import { argvSplit } from './split-command-lines.js';

const TEXT = new Map([
  ['vfs_read', 1],
  ['do_sys_open', 1],
  ['kernel_clone', 1],
  ['do_exit', 1],
  ['foo.isra.0', 1],
  ['dup_sym', 2],
]);

const resolver: ProbeResolver = {
  countSymbols: (name) => TEXT.get(name) ?? 0,
  functionEntry(symbol, offset) {
    const bare = symbol.includes(':') ? symbol.slice(symbol.indexOf(':') + 1) : symbol;
    const loaded = !symbol.includes(':') || symbol.startsWith('mymod:');
    if (!loaded || !(TEXT.has(bare) || bare === 'modfunc')) return 'unknown';
    return offset === 0 ? 'entry' : 'not-entry';
  },
  isModuleLoaded: (name) => name === 'mymod',
};

const G65 = '12345678901234567890123456789012345678901234567890123456789012345';
const DEEP = `+0(^${'+0('.repeat(13)}@0${')'.repeat(14)}`;
const TOO_MANY = `p vfs_read ^${Array.from({ length: 129 }, (_, i) => `a${i}=%ax`).join(' ')}`;

/** Caret-marked commands (the `^` marks the expected error_log position) and their expected error. */
const ERROR_TABLE: readonly (readonly [string, ProbeErrorCode])[] = [
  // maxactive
  ['p^100 vfs_read', 'BAD_MAXACT_TYPE'],
  ['p^1:foo vfs_read', 'BAD_MAXACT_TYPE'],
  ['r^1a111 vfs_read', 'BAD_MAXACT'],
  ['r^0 vfs_read', 'BAD_MAXACT'],
  ['r^08 vfs_read', 'BAD_MAXACT'],
  [`r^1${'0'.repeat(63)} vfs_read`, 'BAD_MAXACT'],
  ['r^100000 vfs_read', 'MAXACT_TOO_BIG'],
  ['r^4097:foo vfs_read', 'MAXACT_TOO_BIG'],
  ['r^0x1001 vfs_read', 'MAXACT_TOO_BIG'],
  // probe place
  ['p ^non_exist_func', 'BAD_PROBE_ADDR'],
  ['p ^hoge-fuga', 'BAD_PROBE_ADDR'],
  ['p ^hoge+1000-1000', 'BAD_PROBE_ADDR'],
  ['p ^vfs_read-8', 'BAD_PROBE_ADDR'],
  ['p ^vfs_read+0x100000000', 'BAD_PROBE_ADDR'],
  ['p ^vfs_read+', 'BAD_PROBE_ADDR'],
  ['p ^vfs_read+1a', 'BAD_PROBE_ADDR'],
  ['r ^vfs_read+10', 'BAD_RETPROBE'],
  ['r ^vfs_read+0x10', 'BAD_RETPROBE'],
  ['p ^vfs_read+10%return', 'BAD_RETPROBE'],
  ['p vfs_read^%hoge', 'BAD_ADDR_SUFFIX'],
  ['p vfs_read^%returnx', 'BAD_ADDR_SUFFIX'],
  ['p vfs_read+4^%ret', 'BAD_ADDR_SUFFIX'],
  ['p ^dup_sym', 'NON_UNIQ_SYMBOL'],
  ['p:/bar ^non_exist_func', 'BAD_PROBE_ADDR'], // the place is checked before the name
  // event and group names
  ['p:^/bar vfs_read', 'NO_GROUP_NAME'],
  ['p:^.bar vfs_read', 'NO_GROUP_NAME'],
  [`p:^${G65}/bar vfs_read`, 'GROUP_TOO_LONG'],
  [`p:^${G65.slice(0, 64)}/bar vfs_read`, 'GROUP_TOO_LONG'],
  ['p:^foo.1/bar vfs_read', 'BAD_GROUP_NAME'],
  ['p:^1foo/bar vfs_read', 'BAD_GROUP_NAME'],
  ['r:^foo+/bar vfs_read', 'BAD_GROUP_NAME'],
  ['p:^ vfs_read', 'NO_EVENT_NAME'],
  ['r2:^ vfs_read', 'NO_EVENT_NAME'],
  [`p:foo/^${G65} vfs_read`, 'EVENT_TOO_LONG'],
  [`p:^a${G65.slice(0, 63)} vfs_read`, 'EVENT_TOO_LONG'],
  ['p:foo/^bar.1 vfs_read', 'BAD_EVENT_NAME'],
  ['p:foo/^bar-1 vfs_read', 'BAD_EVENT_NAME'],
  ['p:foo.^1bar vfs_read', 'BAD_EVENT_NAME'],
  ['p:^9bar vfs_read', 'BAD_EVENT_NAME'],
  // $-variables
  ['p vfs_read ^$retval', 'RETVAL_ON_PROBE'],
  ['p vfs_read x=^$retval', 'RETVAL_ON_PROBE'],
  ['p vfs_read +0(^$retval)', 'RETVAL_ON_PROBE'],
  ['r 0x1000 ^$retval', 'RETVAL_ON_PROBE'],
  ['p vfs_read ^$stack10000', 'BAD_STACK_NUM'],
  ['p vfs_read ^$stack2049', 'BAD_STACK_NUM'],
  ['p vfs_read ^$stack0+10', 'BAD_VAR'],
  ['p vfs_read ^$stackp', 'BAD_VAR'],
  ['p vfs_read ^$arg10000', 'BAD_ARG_NUM'],
  ['p vfs_read ^$arg0', 'BAD_ARG_NUM'],
  ['p vfs_read a=^$arg0', 'BAD_ARG_NUM'],
  ['p vfs_read ^$argx', 'BAD_VAR'],
  ['p vfs_read a=^$argx', 'BAD_VAR'],
  ['p vfs_read ^$none_var', 'BAD_VAR'],
  ['p vfs_read ^$', 'BAD_VAR'],
  ['p vfs_read ^$Comm', 'BAD_VAR'],
  ['p vfs_read+20 ^$arg1', 'NOFENTRY_ARGS'],
  ['p vfs_read+20 x=^$arg1', 'NOFENTRY_ARGS'],
  ['p 0xffffffff81000000 ^$arg1', 'NOFENTRY_ARGS'],
  ['p vfs_read+20 ^$arg*', 'NOFENTRY_ARGS'],
  ['p vfs_read ^$arg*', 'NOSUP_BTFARG'],
  ['p vfs_read $arg* ^$arg*', 'DOUBLE_ARGS'],
  ['p vfs_read ^hoge', 'NOSUP_BTFARG'],
  ['p vfs_read x=^_foo', 'NOSUP_BTFARG'],
  // registers, memory, immediates
  ['p vfs_read ^%none_reg', 'BAD_REG_NAME'],
  ['p vfs_read ^%rax', 'BAD_REG_NAME'],
  ['p vfs_read ^%AX', 'BAD_REG_NAME'],
  ['p vfs_read ^%ds', 'BAD_REG_NAME'],
  ['p vfs_read ^@12345678abcde', 'BAD_MEM_ADDR'],
  ['p vfs_read ^@0x1ffffffffffffffff', 'BAD_MEM_ADDR'],
  ['p vfs_read ^@+10', 'FILE_ON_KPROBE'],
  ['p vfs_read arg1=\\^x', 'BAD_IMM'],
  ['p vfs_read arg1=\\^', 'BAD_IMM'],
  ['p vfs_read \\^0x', 'BAD_IMM'],
  ['p vfs_read \\^--1', 'BAD_IMM'],
  ['p vfs_read arg1=\\"abcd^', 'IMMSTR_NO_CLOSE'],
  ['p vfs_read \\"a^ b', 'IMMSTR_NO_CLOSE'],
  // dereferences
  ['p vfs_read ^+0@0)', 'DEREF_NEED_BRACE'],
  ['p vfs_read ^-8', 'DEREF_NEED_BRACE'],
  ['p vfs_read ^+0ab1(@0)', 'BAD_DEREF_OFFS'],
  ['p vfs_read ^+(%di)', 'BAD_DEREF_OFFS'],
  ['p vfs_read +0(^+x(%di))', 'BAD_DEREF_OFFS'],
  ['p vfs_read +0(+0(@0^)', 'DEREF_OPEN_BRACE'],
  ['p vfs_read +0(%di^', 'DEREF_OPEN_BRACE'],
  ['p vfs_read x=-8(+16(%di^', 'DEREF_OPEN_BRACE'],
  ['p vfs_read +0(^$comm)', 'COMM_CANT_DEREF'],
  ['p vfs_read +0(^\\"abc")', 'COMM_CANT_DEREF'],
  ['p vfs_read -8(+16(^%zz))', 'BAD_REG_NAME'],
  ['p vfs_read +u8^(%zz)', 'BAD_REG_NAME'], // the kernel's offset is one short after `u`
  [`p vfs_read ${DEEP}`, 'TOO_MANY_OPS'],
  ['p vfs_read ^&1', 'BAD_FETCH_ARG'],
  ['p vfs_read x=^(%di)', 'BAD_FETCH_ARG'],
  ['p vfs_read +0(%ax)^+10', 'BAD_FETCH_ARG'],
  ['p vfs_read +0(+8(%di)^x)', 'BAD_FETCH_ARG'],
  // arrays and types
  ['p vfs_read +0(@11):u8[10^', 'ARRAY_NO_CLOSE'],
  ['p vfs_read +0(@11):u8[10]^a', 'BAD_ARRAY_SUFFIX'],
  ['p vfs_read +0(@11):u8[^10a]', 'BAD_ARRAY_NUM'],
  ['p vfs_read +0(@11):u8[^]', 'BAD_ARRAY_NUM'],
  ['p vfs_read +0(@11):u8[^0]', 'BAD_ARRAY_NUM'],
  ['p vfs_read +0(@11):u8[^256]', 'ARRAY_TOO_BIG'],
  ['p vfs_read +0(@11):u8[^65]', 'ARRAY_TOO_BIG'],
  ['p vfs_read @11:^unknown_type', 'BAD_TYPE'],
  ['p vfs_read %ax:^', 'BAD_TYPE'],
  ['p vfs_read %ax:^U8', 'BAD_TYPE'],
  ['p vfs_read @11:^b4@2/12', 'BAD_TYPE'],
  ['p vfs_read @11:^b4@2', 'BAD_TYPE'],
  ['p vfs_read @11:x8[2^', 'ARRAY_NO_CLOSE'],
  ['p vfs_read $stack0:^string', 'BAD_STRING'],
  ['p vfs_read %ax:^string', 'BAD_STRING'],
  ['p vfs_read %ax:^ustring', 'BAD_STRING'],
  ['p vfs_read %ax:^x8[4]', 'BAD_STRING'],
  ['p vfs_read $stack:^u32[2]', 'BAD_STRING'],
  ['p vfs_read \\1:^symstr', 'BAD_SYMSTRING'],
  // After a dereference the kernel keeps the inner offset, so type carets shift right (one less after `u`).
  ['p vfs_read +u0(%si):sym^str', 'BAD_SYMSTRING'],
  ['p vfs_read @11:^b10@a/16', 'BAD_BITFIELD'],
  ['p vfs_read @11:^b0@0/8', 'BAD_BITFIELD'],
  ['p vfs_read @11:^b4@6/8', 'BAD_BITFIELD'],
  ['p vfs_read @11:^b4/8', 'BAD_BITFIELD'],
  ['p vfs_read @11:^b4@/8', 'BAD_BITFIELD'],
  ['p vfs_read +0(@11):b4@^6/8', 'BAD_BITFIELD'],
  ['p vfs_read $comm:^u8', 'NEED_STRING_TYPE'],
  ['p vfs_read $comm:^string[2]', 'NEED_STRING_TYPE'],
  ['p vfs_read \\"foo":^u8', 'NEED_STRING_TYPE'],
  // argument names and lengths
  ['p vfs_read ^arg123456789012345678901234567890=@11', 'ARG_NAME_TOO_LONG'],
  ['p vfs_read ^=@11', 'NO_ARG_NAME'],
  ['p vfs_read ^var.1=@11', 'BAD_ARG_NAME'],
  ['p vfs_read ^1var=@11', 'BAD_ARG_NAME'],
  ['p vfs_read var1=@11 ^var1=@12', 'USED_ARG_NAME'],
  ['p vfs_read ^common_pid=%ax', 'USED_ARG_NAME'],
  ['p vfs_read ^__probe_ip=%ax', 'USED_ARG_NAME'],
  ['p vfs_read arg2=%ax ^%bx', 'USED_ARG_NAME'],
  ['p vfs_read ^+1234567(+1234567(+1234567(+1234567(+1234567(+1234567(@1234))))))', 'ARG_TOO_LONG'],
  ['p vfs_read arg1=^', 'NO_ARG_BODY'],
  [TOO_MANY, 'TOO_MANY_ARGS'],
];

function caret(marked: string): { argv: string[]; command: string; pos: number } {
  const pos = marked.lastIndexOf('^');
  const command = marked.replaceAll('^', '');
  return { argv: argvSplit(command), command, pos };
}

describe(parseProbeCommand, () => {
  it.each(ERROR_TABLE)('should reject %s with %s at the caret', (marked, code) => {
    const { argv, command, pos } = caret(marked);
    const r = parseProbeCommand(argv, resolver);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe(code);
    expect(r.error.command).toBe(command);
    expect(r.error.position).toBe(pos);
  });

  it('should fail with the errno the kernel returns', () => {
    const errno = (cmd: string) => {
      const r = parseProbeCommand(argvSplit(cmd), resolver);
      return r.ok ? 0 : r.error.errnoName;
    };
    expect(errno('p dup_sym')).toBe('EADDRNOTAVAIL');
    expect(errno('p non_exist_func')).toBe('ENOENT');
    expect(errno('p vfs_read+8a')).toBe('EINVAL');
    expect(errno(`p vfs_read ${'+1('.repeat(21)}%di${')'.repeat(21)}`)).toBe('E2BIG');
    expect(errno('p vfs_read $arg*')).toBe('EOPNOTSUPP');
    expect(errno(TOO_MANY.replace('^', ''))).toBe('E2BIG');
  });

  it('should reject without an error_log entry what the kernel cancels', () => {
    for (const cmd of ['x vfs_read', 'p', 'r:foo', '-:foo vfs_read', 'p /bin/ls:0x10']) {
      const r = parseProbeCommand(argvSplit(cmd), resolver);
      expect(r.ok ? undefined : [r.error.code, r.error.errno]).toEqual([undefined, 22]);
    }
  });

  it('should parse the kprobetrace doc examples into their documented shapes', () => {
    const p = parseProbeCommand(
      argvSplit('p:myprobe do_sys_open dfd=%di filename=+0(%si):string flags=%dx mode=%cx'),
      resolver,
    );
    expect(p.ok).toBe(true);
    if (!p.ok) return;
    const d = p.value;
    expect([d.kind, d.group, d.event, d.symbol, d.offset, d.functionEntry]).toEqual([
      'p',
      'kprobes',
      'myprobe',
      'do_sys_open',
      0,
      true,
    ]);
    expect(d.args.map((a) => [a.name, a.comm, a.type.name, a.offset])).toEqual([
      ['dfd', '%di', 'x64', 0],
      ['filename', '+0(%si):string', 'string', 8],
      ['flags', '%dx', 'x64', 12],
      ['mode', '%cx', 'x64', 20],
    ]);
    expect(d.size).toBe(28);
    expect(d.args[1].code.map((c) => c.op)).toEqual(['reg', 'st_string', 'end']);
    const r = parseProbeCommand(argvSplit('r:myretprobe do_sys_open $retval'), resolver);
    expect(r.ok && [r.value.kind, r.value.event, r.value.args[0].name, r.value.args[0].code.map((c) => c.op)]).toEqual([
      'r',
      'myretprobe',
      'arg1',
      ['retval', 'st_raw', 'end'],
    ]);
  });

  it.each([
    ['p vfs_read', 'kprobes', 'p_vfs_read_0'],
    ['r vfs_read', 'kprobes', 'r_vfs_read_0'],
    ['p vfs_read+16', 'kprobes', 'p_vfs_read_16'],
    ['p vfs_read+0x10', 'kprobes', 'p_vfs_read_16'],
    ['p vfs_read%return', 'kprobes', 'r_vfs_read_0'],
    ['p foo.isra.0', 'kprobes', 'p_foo_isra_0_0'],
    ['p mymod:modfunc', 'kprobes', 'p_mymod_modfunc_0'],
    ['p:grp/ vfs_read', 'grp', 'p_vfs_read_0'],
    ['p:my-grp/ev vfs_read', 'my-grp', 'ev'],
    ['p:grp.ev vfs_read', 'grp', 'ev'],
    ['r16:ret vfs_read', 'kprobes', 'ret'],
    ['p 0xffffffff81000000', 'kprobes', 'p_0xffffffff81000000'],
    [`p:a${G65.slice(0, 62)} vfs_read`, 'kprobes', `a${G65.slice(0, 62)}`],
  ])('should accept %s as %s/%s', (cmd, group, event) => {
    const r = parseProbeCommand(argvSplit(cmd), resolver);
    expect(r.ok && [r.value.group, r.value.event]).toEqual([group, event]);
  });

  it('should accept every fetcharg form and compile it', () => {
    const cmd =
      'p vfs_read a=%ax b=@0x1000 c=@jiffies+8 d=$stack3 e=$stack f=$arg7 g=$comm h=-8(+u16(%sp)):s32 i=\\-5 ' +
      'j=\\"hi" k=+0(%di):u8[4] l=%di:b3@2/8 m=+0(%si):string[2] n=%ax:symbol o=%ax:symstr p=+0(%di):char q=$COMM:string';
    const r = parseProbeCommand(argvSplit(cmd), resolver);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const ops = Object.fromEntries(r.value.args.map((a) => [a.name, a.code.map((c) => c.op).join(' ')]));
    expect(ops).toEqual({
      a: 'reg st_raw end',
      b: 'imm st_mem end',
      c: 'symbol imm st_mem end',
      d: 'stack st_raw end',
      e: 'stackp st_raw end',
      f: 'arg st_raw end',
      g: 'comm st_string end',
      h: 'reg uderef st_mem end',
      i: 'imm st_raw end',
      j: 'data st_string end',
      k: 'reg st_mem lp_array end',
      l: 'reg st_raw mod_bf end',
      m: 'reg deref st_string lp_array end',
      n: 'reg st_raw end',
      o: 'reg st_symstr end',
      p: 'reg st_mem end',
      q: 'comm st_string end',
    });
    expect(r.value.args.find((a) => a.name === 'i')?.code[0].immediate).toBe((1n << 64n) - 5n);
  });

  it('should read entry arguments in return probes and accept 13 nested dereferences', () => {
    const r = parseProbeCommand(argvSplit('r vfs_read $arg2 x=$arg1'), resolver);
    expect(r.ok && r.value.args.map((a) => [a.code[0].op, a.code[0].param])).toEqual([
      ['edata', 1],
      ['edata', 0],
    ]);
    const deep = `p vfs_read ${'+0('.repeat(13)}@0${')'.repeat(13)}`;
    expect(parseProbeCommand(argvSplit(deep), resolver).ok).toBe(true);
  });
});
