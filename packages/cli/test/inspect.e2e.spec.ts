// End-to-end tests of `int3 demo`, `probes`, `syms`, `disasm` and `dmesg`: they spawn the built binary.
import { describe, expect, it } from 'vitest';
import { int3, lines, ok } from './int3.js';

describe('int3 demo', () => {
  it('should print every section: events, trace, list, profile, printk, the four interruptions and none today', () => {
    const out = ok(['demo']);
    expect(out).toMatch(/insmod kprobe_example\.ko jprobe_example\.ko kretprobe_example\.ko/);
    expect(out).toMatch(
      /dd-\d+ +\[00\d\] .* open: \(do_sys_open\+0x0\/0x[0-9a-f]+\) dfd=0xffffff9c filename="\/dev\/ram0"/,
    );
    expect(out).toMatch(/mkdir_ret: \(.* <- sys_mkdir\) arg1=0x0/);
    expect(out).toMatch(/xmit: \(ip_queue_xmit\+0x0\/0x[0-9a-f]+\) sk=/);
    expect(out).toMatch(/ffffffff[0-9a-f]{8} {2}k {2}__blockdev_direct_IO\+0x0/);
    expect(out).toMatch(/ j {2}ip_queue_xmit\+0x0/);
    expect(out).toMatch(/^ {2}xmit +8 +0$/m);
    expect(out).toMatch(/kprobe_example: pre_handler: p->addr=0xffffffff81000a20|kprobe_example: planted kprobe/);
    expect(out).toMatch(/ r {2}sys_mkdir\+0x0 {4}\[OPTIMIZED\]$/m);
    const classic = out.slice(out.indexOf('# one kretprobe hit'), out.indexOf('# a later hit'));
    expect(classic).toMatch(/^# one kretprobe hit on sys_mkdir, the 2\.6\.12 way .*: 4 interruptions$/m);
    expect(lines(classic).filter((l) => l.startsWith('  interruption '))).toEqual([
      expect.stringMatching(/^ {2}interruption 1: #BP at sys_mkdir\+0x1\//),
      expect.stringMatching(/^ {2}interruption 2: #DB at kprobe_insn_page\+/),
      expect.stringMatching(/^ {2}interruption 3: #BP at kretprobe_trampoline\+0x1\//),
      expect.stringMatching(/^ {2}interruption 4: #DB at do_syscall_64\+/),
    ]);
    // Today's path: the entry is a jmp into the detour buffer, the booster's trampoline calls the
    // handler: no trap either way.
    const modern = out.slice(out.indexOf('# a later hit'));
    expect(modern).toMatch(/^# a later hit, .*: 0 interruptions$/m);
    expect(lines(modern)[1]).toMatch(/kprobe:hit: sys_mkdir\+0x0 \(its jmp to the optimized callback, no trap\)$/);
    expect(lines(modern).filter((l) => l.startsWith('  interruption '))).toEqual([]);
    expect(lines(modern).at(-1)).toMatch(
      /kretprobe:trampoline-hit: sys_mkdir\+0x0\/0x[0-9a-f]+ returned 0, back to do_syscall_64\+/,
    );
    expect(lines(out).length).toBeLessThan(80);
  });
});

describe('int3 probes, syms, disasm, dmesg', () => {
  it('should list registered probes with their kind letters, and the blacklist', () => {
    const list = ok(['probes', 'list', '-e', 'p:open do_sys_open', '-e', 'r:mk sys_mkdir']);
    expect(list).toMatch(/ {2}k {2}do_sys_open\+0x0/);
    expect(list).toMatch(/ {2}r {2}sys_mkdir\+0x0/);
    expect(ok(['probes', 'blacklist'])).toMatch(/^0xffffffff[0-9a-f]+-0xffffffff[0-9a-f]+\tentry_SYSCALL_64$/m);
    expect(int3(['probes', 'nope']).status).toBe(2);
  });

  it('should say with --why why each probe is not jump-optimized, after the optimizer had its delay', () => {
    const out = ok(['probes', 'list', '--why', '-e', 'p:a do_sys_open', '-e', 'p:b do_sys_open+1']);
    expect(out).toBe(
      [
        'ffffffff81001c81  k  do_sys_open+0x1    [OPTIMIZED]',
        'ffffffff81001c80  k  do_sys_open+0x0    ',
        '    not optimized: probe inside the region at do_sys_open+0x1/0x40',
        '',
      ].join('\n'),
    );
    const rules = ok(['probes', 'list', '--why', '-e', 'p:x optprobe_jump_into_region', '-e', 'p:y kprobe_target']);
    expect(rules).toMatch(
      / k {2}optprobe_jump_into_region\+0x0 {4}\n {4}not optimized: jl .* jumps into the optimized region\n/,
    );
    expect(rules).toMatch(/ k {2}kprobe_target\+0x0 {4}\[OPTIMIZED\]\n/);
    expect(int3(['probes', 'blacklist', '--why']).status).toBe(2);
  });

  it('should print the list and the symbols as JSON with --json', () => {
    const list = JSON.parse(
      ok(['probes', 'list', '--json', '-e', 'r:b sys_mkdir', '-e', 'p:x optprobe_jump_into_region']),
    );
    expect(list).toEqual([
      expect.objectContaining({ kind: 'r', symbol: 'sys_mkdir+0x0', module: null, flags: ['OPTIMIZED'] }),
      expect.objectContaining({
        kind: 'k',
        symbol: 'optprobe_jump_into_region+0x0',
        flags: [],
        why: expect.stringMatching(/jumps into the optimized region$/),
      }),
    ]);
    expect(list[0].address).toMatch(/^0xffffffff81[0-9a-f]{6}$/);
    expect(list[0]).not.toHaveProperty('why');
    const syms = JSON.parse(ok(['syms', '--json', 'sys_mkdir']));
    expect(syms).toEqual([{ name: 'sys_mkdir', address: list[0].address, size: expect.any(Number) }]);
  });

  it('should list functions matching a glob', () => {
    expect(lines(ok(['syms', 'sys_mk*'])).sort()).toEqual(['sys_mkdir', 'sys_mkdirat']);
  });

  it('should disassemble a function and mark a probe point with its slot or detour buffer', () => {
    // Past the optimizer's delay: do_sys_open+1 is jump-optimized, its region shown as it was.
    const out = lines(ok(['disasm', 'do_sys_open', '-e', 'p do_sys_open+1']));
    expect(out[0]).toMatch(/^ffffffff[0-9a-f]+ <do_sys_open>:$/);
    expect(out[1]).toMatch(/push %rbp$/);
    expect(out[2]).toMatch(
      /mov %edx,%eax {2}<- kprobe \(jump-optimized: jmp to its detour buffer at 0x[0-9a-f]+, .*\)$/,
    );
    expect(out[3]).toMatch(/and \$0xfff,%ecx$/);
    // A probe the optimizer refuses keeps its int3.
    const refused = lines(ok(['disasm', 'optprobe_jump_into_region', '-e', 'p optprobe_jump_into_region']));
    expect(refused[1]).toMatch(/<- kprobe \(armed: int3 in place; copy at slot 0x[0-9a-f]+\)$/);
    expect(refused[1]).not.toMatch(/int3 +</);
    const r = int3(['disasm', 'do_sys_opn']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/unknown kernel symbol 'do_sys_opn'; did you mean do_sys_open/);
  });

  it('should print the kernel log after the --run workloads', () => {
    const out = ok(['dmesg', '--run', 'fault']);
    expect(out).toMatch(/^\[ +0\.000000\] Linux version/);
    expect(out).toMatch(/fault\[\d+\]: segfault at 10 /);
  });
});
