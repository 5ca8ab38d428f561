import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IMAGE_DIR } from '@int3/kernel';
import { describe, expect, it } from 'vitest';
import { ERRORS, type ProbeErrorCode } from '../src/probe-events/probe-errors.js';
import type { TraceFs } from '../src/tracefs/trace-fs.js';
import { bootTraceFs, errnoOf, run, traceLines } from './support/tracefs-machine.js';

/*
 * The cases of Linux's ftrace selftests (tools/testing/selftests/ftrace/test.d/kprobe/*.tc) that apply
 * to x86-64 without BTF, one `describe` per file, written anew against int3's tracefs. The sample kernel
 * lacks a few of the functions the scripts name; each substitute is said where it is used
 * (`_do_fork` is `kernel_clone` since 5.10, `tracefs_create_dir` becomes `do_sys_open`'s filename).
 */

/** Writes `p vfs_read ARG` and returns the errno name ('ok' if accepted), as test_goodarg/test_badarg do. */
function tryArgs(args: readonly string[], fn = 'vfs_read'): (readonly [string, string])[] {
  const { fs } = bootTraceFs();
  return args.map((a) => [a, errnoOf(() => fs.write('kprobe_events', `p ${fn} ${a}`))] as const);
}

/**
 * The selftests' `ftrace_errlog_check`: the command (caret removed) fails, and `error_log` ends with
 * an entry of `trace_kprobe` whose caret line puts `^` where the caret was. The expected error name
 * (the selftest's comment) is checked by its message too.
 */
function checkError(fs: TraceFs, marked: string, code: ProbeErrorCode): void {
  const pos = marked.indexOf('^');
  const command = marked.replaceAll('^', '');
  fs.write('error_log', '');
  expect(
    errnoOf(() => fs.write('kprobe_events', command, { append: true })),
    command,
  ).not.toBe('ok');
  const lines = fs.read('error_log').split('\n').filter(Boolean);
  expect(lines.at(-3)?.replace(/^\[[ \d.]+\] /, ''), command).toBe(`trace_kprobe: error: ${ERRORS[code]}`);
  expect(lines.at(-2)).toBe(`  Command: ${command}`);
  // "  Command: " and "^\n" are 13 characters, as ftrace_errlog_check counts.
  expect(`${lines.at(-1)}\n`.length, command).toBe(13 + pos);
}

describe('kprobe_args_syntax.tc (Kprobe event argument syntax)', () => {
  const SYM = '_sdata';
  const SYMADDR = '0xffffffff81008000';

  it('should have _sdata at the address the test reads from kallsyms', () => {
    const { fs } = bootTraceFs();
    expect(fs.view.symbols.lookupName(SYM)).toBe(BigInt(SYMADDR));
  });

  it.each([
    ['register access', ['%ax']],
    ['symbol access', [`@${SYM}`, `@${SYMADDR}`, `@${SYM}+10`, `@${SYM}-10`]],
    ['stack access', ['$stack', '$stack0', '$stack1']],
    ['comm access', ['$comm']],
    [
      'indirect memory access',
      ['+0(%ax)', '-0(%ax)', '+10($stack)', '+0($stack1)', `+10(@${SYM}-10)`, '+0(+10(+20($stack)))'],
    ],
    ['name assignment', ['varname=%ax']],
    ['type syntax', ['%ax:x16']],
    ['combination check', ['$comm:string', '+0($stack):string']],
  ])('should accept the good args of %s', (_what, args) => {
    expect(tryArgs(args).filter(([, e]) => e !== 'ok')).toEqual([]);
  });

  it.each([
    ['register access', ['%ex']],
    ['symbol access', ['@', '@deaqswdefr', `@${SYM}*10`, `@${SYM}/10`, `@${SYM}%10`, `@${SYM}&10`, `@${SYM}|10`]],
    ['stack access', ['$stackp', '$stack0+10', '$stack1-10']],
    ['retval access', ['$retval']],
    ['indirect memory access', ['+(%ax)', '(%ax+10)', '-(%ax)', '(%ax)', '+10($comm)', '+0(%ax)+10']],
    ['name assignment', ['varname=varname2=%ax']],
    ['type syntax', ['%ax::x16', '%ax:y16', 'x16:%ax']],
    ['combination check', ['$comm:x64', '$stack:string', '%ax:string']],
  ])('should reject the bad args of %s', (_what, args) => {
    expect(tryArgs(args).filter(([, e]) => e === 'ok')).toEqual([]);
  });

  it('should accept $retval on a return probe', () => {
    const { fs } = bootTraceFs();
    expect(errnoOf(() => fs.write('kprobe_events', 'r vfs_read $retval'))).toBe('ok');
  });
});

describe('kprobe_syntax_errors.tc (Kprobe event parser error log check)', () => {
  const G65 = '12345678901234567890123456789012345678901234567890123456789012345';
  const CASES: readonly (readonly [string, ProbeErrorCode])[] = [
    ['p^100 vfs_read', 'BAD_MAXACT_TYPE'],
    ['r^1a111 vfs_read', 'BAD_MAXACT'],
    ['r^100000 vfs_read', 'MAXACT_TOO_BIG'],
    ['p ^non_exist_func', 'BAD_PROBE_ADDR'],
    ['p ^hoge-fuga', 'BAD_PROBE_ADDR'],
    ['p ^hoge+1000-1000', 'BAD_PROBE_ADDR'],
    ['r ^vfs_read+10', 'BAD_RETPROBE'],
    ['p:^/bar vfs_read', 'NO_GROUP_NAME'],
    [`p:^${G65}/bar vfs_read`, 'GROUP_TOO_LONG'],
    ['p:^foo.1/bar vfs_read', 'BAD_GROUP_NAME'],
    ['p:^ vfs_read', 'NO_EVENT_NAME'],
    [`p:foo/^${G65} vfs_read`, 'EVENT_TOO_LONG'],
    ['p:foo/^bar.1 vfs_read', 'BAD_EVENT_NAME'],
    ['p vfs_read ^$retval', 'RETVAL_ON_PROBE'],
    ['p vfs_read ^$stack10000', 'BAD_STACK_NUM'],
    ['p vfs_read ^$arg10000', 'BAD_ARG_NUM'],
    ['p vfs_read ^$none_var', 'BAD_VAR'],
    ['p vfs_read ^%none_reg', 'BAD_REG_NAME'],
    ['p vfs_read ^@12345678abcde', 'BAD_MEM_ADDR'],
    ['p vfs_read ^@+10', 'FILE_ON_KPROBE'],
    ['p vfs_read arg1=\\^x', 'BAD_IMM'],
    ['p vfs_read arg1=\\"abcd^', 'IMMSTR_NO_CLOSE'],
    ['p vfs_read ^+0@0)', 'DEREF_NEED_BRACE'],
    ['p vfs_read ^+0ab1(@0)', 'BAD_DEREF_OFFS'],
    ['p vfs_read +0(+0(@0^)', 'DEREF_OPEN_BRACE'],
    ['p vfs_read +0(^$comm)', 'COMM_CANT_DEREF'],
    ['p vfs_read ^&1', 'BAD_FETCH_ARG'],
    ['p vfs_read +0(^+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(@0))))))))))))))', 'TOO_MANY_OPS'],
    ['p vfs_read +0(@11):u8[10^', 'ARRAY_NO_CLOSE'],
    ['p vfs_read +0(@11):u8[10]^a', 'BAD_ARRAY_SUFFIX'],
    ['p vfs_read +0(@11):u8[^10a]', 'BAD_ARRAY_NUM'],
    ['p vfs_read +0(@11):u8[^256]', 'ARRAY_TOO_BIG'],
    ['p vfs_read @11:^unknown_type', 'BAD_TYPE'],
    ['p vfs_read $stack0:^string', 'BAD_STRING'],
    ['p vfs_read @11:^b10@a/16', 'BAD_BITFIELD'],
    ['p vfs_read ^arg123456789012345678901234567890=@11', 'ARG_NAME_TOO_LONG'],
    ['p vfs_read ^=@11', 'NO_ARG_NAME'],
    ['p vfs_read ^var.1=@11', 'BAD_ARG_NAME'],
    ['p vfs_read var1=@11 ^var1=@12', 'USED_ARG_NAME'],
    ['p vfs_read ^+1234567(+1234567(+1234567(+1234567(+1234567(+1234567(@1234))))))', 'ARG_TOO_LONG'],
    ['p vfs_read arg1=^', 'NO_ARG_BODY'],
    // x86: vfs_read+3 is inside the 3-byte `mov %rsp,%rbp` after `push %rbp`.
    ['p ^vfs_read+3', 'BAD_INSN_BNDRY'],
    // %return suffix errors
    ['p vfs_read^%hoge', 'BAD_ADDR_SUFFIX'],
    ['p ^vfs_read+10%return', 'BAD_RETPROBE'],
    // Without BTF: $arg* and bare names.
    ['p vfs_read ^$arg*', 'NOSUP_BTFARG'],
  ];

  it.each(CASES)('should log %s as %s at the caret', (marked, code) => {
    const { fs } = bootTraceFs();
    checkError(fs, marked, code);
  });

  it('should log the multiprobe errors against an existing event (DIFF_PROBE_TYPE, DIFF_ARG_TYPE, SAME_PROBE)', () => {
    const { fs } = bootTraceFs();
    fs.write('kprobe_events', 'p:kprobes/testevent kernel_clone');
    checkError(fs, '^r:kprobes/testevent do_exit', 'DIFF_PROBE_TYPE');
    fs.write('kprobe_events', 'p:kprobes/testevent kernel_clone abcd=\\1');
    checkError(fs, 'p:kprobes/testevent kernel_clone ^bcd=\\1', 'DIFF_ARG_TYPE');
    checkError(fs, 'p:kprobes/testevent kernel_clone ^abcd=\\1:u8', 'DIFF_ARG_TYPE');
    checkError(fs, 'p:kprobes/testevent kernel_clone ^abcd=\\"foo"', 'DIFF_ARG_TYPE');
    checkError(fs, '^p:kprobes/testevent kernel_clone abcd=\\1', 'SAME_PROBE');
  });
});

describe('kprobe_args_type.tc (Kprobes event arguments with types)', () => {
  it.each([64, 32, 16, 8])('should record $stack0 as s%i, u, x and a 4-bit field that agree', (width) => {
    const { m, fs } = bootTraceFs();
    fs.write(
      'kprobe_events',
      `p:testprobe kernel_clone $stack0:s${width} $stack0:u${width} $stack0:x${width} $stack0:b4@4/${width}`,
    );
    expect(fs.read('kprobe_events')).toContain('testprobe');
    expect(fs.ls('events/kprobes')).toContain('testprobe');
    fs.write('events/kprobes/testprobe/enable', '1');
    run(m, ['fork', '1']);
    fs.write('events/kprobes/testprobe/enable', '0');
    const line = traceLines(fs).find((l) => l.includes('testprobe:'));
    const [, s, u, x, bf] = line?.match(/ arg1=(\S+) arg2=(\S+) arg3=(\S+) arg4=(\S+)$/) ?? [];
    const mask = (1n << BigInt(width)) - 1n;
    // The script's check_types: the signed value's low bits, the unsigned and the hex value are one
    // number; the bitfield is bits 4..7 of it.
    expect(BigInt(s) & mask).toBe(BigInt(u));
    expect(BigInt(x)).toBe(BigInt(u));
    expect(x).toMatch(/^0x[0-9a-f]+$/);
    expect(BigInt(bf)).toBe((BigInt(u) >> 4n) & 0xfn);
  });
});

describe('kprobe_args_string.tc (Kprobe event string type argument)', () => {
  // The script probes tracefs_create_dir for the directory "test"; here do_sys_open's filename (%si).
  it('should fetch one and two string arguments from the first argument register', () => {
    const { m, fs } = bootTraceFs();
    fs.write('kprobe_events', 'p:testprobe do_sys_open arg1=+0(%si):string');
    fs.write('events/kprobes/testprobe/enable', '1');
    run(m, ['cat', '/etc/motd']);
    expect(traceLines(fs).some((l) => /testprobe.* arg1="\/etc\/motd"$/.test(l))).toBe(true);
    fs.write('events/kprobes/testprobe/enable', '0');
    fs.write('kprobe_events', 'p:testprobe do_sys_open arg1=+0(%si):string arg2=+0(%si):string');
    fs.write('events/kprobes/testprobe/enable', '1');
    run(m, ['cat', '/etc/motd']);
    expect(traceLines(fs).some((l) => /testprobe.* arg1="\/etc\/motd" arg2="\/etc\/motd"$/.test(l))).toBe(true);
  });
});

describe('kprobe_args_symbol.tc (Kprobe event symbol argument)', () => {
  it('should fetch basic types and a bitfield from @linux_proc_banner', () => {
    const { m, fs } = bootTraceFs();
    const at = (t: string[]) => t.map((ty, i) => `arg${i + 1}=@linux_proc_banner:${ty}`).join(' ');
    fs.write('kprobe_events', `p:testprobe_u kernel_clone ${at(['u64', 'u32', 'u16', 'u8'])}`);
    fs.write('kprobe_events', `p:testprobe_s kernel_clone ${at(['s64', 's32', 's16', 's8'])}`, { append: true });
    fs.write('kprobe_events', `p:testprobe_x kernel_clone ${at(['x64', 'x32', 'x16', 'x8'])}`, { append: true });
    fs.write('kprobe_events', 'p:testprobe_bf kernel_clone arg1=@linux_proc_banner:b8@4/32', { append: true });
    fs.write('events/kprobes/enable', '1');
    run(m, ['fork', '1']);
    fs.write('events/kprobes/enable', '0');
    const lines = traceLines(fs);
    for (const ev of ['u', 's', 'x']) {
      expect(lines.some((l) => new RegExp(`testprobe_${ev}:.* arg1=.* arg2=.* arg3=.* arg4=.*`).test(l))).toBe(true);
    }
    expect(lines.some((l) => /testprobe_bf:.* arg1=.*/.test(l))).toBe(true);
  });

  it('should fetch @linux_proc_banner as the string /proc/version prints', () => {
    const { m, fs } = bootTraceFs();
    fs.write('kprobe_events', 'p:testprobe_str kernel_clone arg1=@linux_proc_banner:string');
    fs.write('events/kprobes/enable', '1');
    run(m, ['fork', '1']);
    const line = traceLines(fs).find((l) => l.includes('testprobe_str:')) ?? '';
    const banner = line.replace(/.* arg1=/, '');
    // linux_proc_banner is a format ("%s version %s (...) %s\n"); the script compares its two
    // parenthesized parts with /proc/version's.
    const parens = (s: string) => s.match(/\([^)]*\)/g)?.slice(0, 2);
    const version = run(m, ['cat', '/proc/version']);
    expect(parens(banner)).toEqual(parens(version));
  });
});

describe('kprobe_args_char.tc (Kprobe event char type argument)', () => {
  it('should print a char and a char array from the first argument', () => {
    const { m, fs } = bootTraceFs();
    fs.write('kprobe_events', 'p:testprobe do_sys_open arg1=+0(%si):char');
    fs.write('events/kprobes/testprobe/enable', '1');
    run(m, ['cat', '/etc/motd']);
    expect(traceLines(fs).some((l) => /testprobe.* arg1='\/'$/.test(l))).toBe(true);
    fs.write('events/kprobes/testprobe/enable', '0');
    fs.write('kprobe_events', 'p:testprobe do_sys_open arg1=+0(%si):char arg2=+0(%si):char[4]');
    fs.write('events/kprobes/testprobe/enable', '1');
    run(m, ['cat', '/etc/motd']);
    expect(traceLines(fs).some((l) => /testprobe.* arg1='\/' arg2=\{'\/','e','t','c'\}$/.test(l))).toBe(true);
  });
});

describe('kprobe_eventname.tc (Kprobe event auto/manual naming)', () => {
  it('should name an event on a function, with a new name, and with a new group', () => {
    const { fs } = bootTraceFs();
    fs.write('kprobe_events', 'p vfs_read');
    expect(fs.ls('events/kprobes')).toContain('p_vfs_read_0');
    fs.write('kprobe_events', 'p:event1 vfs_read');
    expect(fs.ls('events/kprobes')).toContain('event1');
    fs.write('kprobe_events', 'p:kprobes2/event2 vfs_read');
    expect(fs.ls('events/kprobes2')).toContain('event2');
  });

  it('should name an event on a dot function with its dots made underscores', () => {
    const { fs } = bootTraceFs();
    fs.write('kprobe_events', 'p lookup_at.constprop.0');
    const event = fs.read('kprobe_events').split(' ')[0].split(':')[1];
    expect(event).toBe('kprobes/p_lookup_at_constprop_0_0');
    expect(fs.ls(`events/${event}`)).toContain('enable');
  });
});

describe('kprobe_multiprobe.tc (Create/delete multiprobe on kprobe event)', () => {
  const DEF1 = 'p:kprobes/testevent kernel_clone';
  const DEF2 = 'p:kprobes/testevent do_exit';

  it('should define an event with two probes, remove both by name, then one by its place', () => {
    const { fs } = bootTraceFs();
    fs.write('kprobe_events', DEF1, { append: true });
    fs.write('kprobe_events', DEF2, { append: true });
    expect(fs.read('kprobe_events')).toBe(`${DEF1}\n${DEF2}\n`);
    fs.write('kprobe_events', '-:kprobes/testevent', { append: true });
    expect(fs.read('kprobe_events')).toBe('');
    fs.write('kprobe_events', DEF1, { append: true });
    fs.write('kprobe_events', DEF2, { append: true });
    fs.write('kprobe_events', '-:kprobes/testevent kernel_clone', { append: true });
    expect(fs.read('kprobe_events')).toBe(`${DEF2}\n`);
  });

  it('should fail appending a probe of a different type of arguments', () => {
    const { fs } = bootTraceFs();
    fs.write('kprobe_events', DEF1, { append: true });
    fs.write('kprobe_events', DEF2, { append: true });
    expect(errnoOf(() => fs.write('kprobe_events', `${DEF1} $stack`, { append: true }))).toBe('EEXIST');
  });
});

describe('kretprobe_maxactive.tc (Kretprobe dynamic event with maxactive)', () => {
  it('should reject an unknown command, a too big maxactive and an unparsable one', () => {
    const { fs } = bootTraceFs();
    expect(errnoOf(() => fs.write('kprobe_events', 'a:myprobeaccept inet_csk_accept'))).toBe('EINVAL');
    expect(errnoOf(() => fs.write('kprobe_events', 'r1000000:myprobeaccept inet_csk_accept'))).toBe('EINVAL');
    expect(errnoOf(() => fs.write('kprobe_events', 'r10fuzz:myprobeaccept inet_csk_accept'))).toBe('EINVAL');
  });

  it.each([
    ['r:myprobeaccept inet_csk_accept', 'myprobeaccept'],
    ['r10:myprobeaccept inet_csk_accept', 'myprobeaccept'],
    ['r inet_csk_accept', 'r_inet_csk_accept_0'],
    ['r10 inet_csk_accept', 'r_inet_csk_accept_0'],
  ])('should define %s as %s, and remove it', (cmd, event) => {
    const { fs } = bootTraceFs();
    fs.write('kprobe_events', cmd);
    expect(fs.read('kprobe_events')).toContain('inet_csk_accept');
    expect(fs.ls('events/kprobes')).toContain(event);
    fs.write('kprobe_events', `-:${event}`, { append: true });
    expect(fs.read('kprobe_events')).toBe('');
  });

  it('should show the maxactive it was given', () => {
    const { fs } = bootTraceFs();
    fs.write('kprobe_events', 'r10:myprobeaccept inet_csk_accept');
    expect(fs.read('kprobe_events')).toBe('r10:kprobes/myprobeaccept inet_csk_accept\n');
  });
});

describe('kprobe_module.tc (Kprobe dynamic event - probing module)', () => {
  const helloKo = () => new Uint8Array(readFileSync(join(IMAGE_DIR, 'modules', 'hello.ko')));
  const MOD = 'hello';
  const FUNC = 'hello_greet';

  it('should define events on a module function with and without the module name, keep them over rmmod, and record on reload', () => {
    const { m, fs } = bootTraceFs();
    m.modules.load(helloKo(), 'hello.ko');
    fs.write('kprobe_events', `p:event0 ${FUNC}`);
    expect(fs.ls('events/kprobes')).toContain('event0');
    fs.write('kprobe_events', '-:kprobes/event0', { append: true });
    fs.write('kprobe_events', `p ${MOD}:${FUNC}`);
    expect(fs.ls('events/kprobes')).toContain(`p_${MOD}_${FUNC}_0`);
    fs.write('kprobe_events', `p:event1 ${MOD}:${FUNC}`);
    expect(fs.ls('events/kprobes')).toContain('event1');
    fs.write('kprobe_events', `p:kprobes1/event1 ${MOD}:${FUNC}`);
    expect(fs.ls('events/kprobes1')).toContain('event1');
    m.modules.unload(MOD);
    expect(fs.ls('events/kprobes1')).toContain('event1');
    fs.write('kprobe_events', `p:event2 ${MOD}:${FUNC}`, { append: true });
    fs.write('events/kprobes1/event1/enable', '1');
    m.modules.load(helloKo(), 'hello.ko');
    expect(traceLines(fs).some((l) => l.includes('event1:'))).toBe(true);
    m.modules.unload(MOD);
    fs.write('events/kprobes1/event1/enable', '0');
    fs.write('kprobe_events', '-:kprobes1/event1', { append: true });
    expect(fs.read('kprobe_events')).toBe(`p:kprobes/event2 ${MOD}:${FUNC}\n`);
  });
});

describe('probepoint.tc (Kprobe events - probe points)', () => {
  // The script probes tracefs_create_dir; vfs_read here, with its neighbours in kallsyms.
  it('should accept a function, its address and an offset up to the next symbol, and reject one before it', () => {
    const { m, fs } = bootTraceFs();
    const syms = m.kallsyms.all().filter((s) => s.type === 't' || s.type === 'T');
    const i = syms.findIndex((s) => s.name === 'vfs_read');
    const [prev, target, next] = [syms[i - 1], syms[i], syms[i + 1]];
    const def = (place: string) => errnoOf(() => fs.write('kprobe_events', `p:testprobe ${place}`));
    expect(def('vfs_read')).toBe('ok');
    expect(def(`0x${target.address.toString(16)}`)).toBe('ok');
    expect(def(`vfs_read+${next.address - target.address}`)).toBe('ok');
    expect(def(`vfs_read${prev.address - target.address}`)).not.toBe('ok');
    // The unsigned overflow: an offset that wraps round to the previous symbol.
    const overflow = BigInt.asUintN(64, prev.address - target.address);
    expect(def(`vfs_read+0x${overflow.toString(16)}`)).not.toBe('ok');
  });
});
