import { describe, expect, it } from 'vitest';
import type { KprobeEvent } from '../src/core/kprobe-event.js';
import { kprobesCore } from '../src/kprobes.js';
import { assemble } from './support/assemble.js';
import { addr, bootWithKprobes, boundaries, run } from './support/machine.js';

// Each function returns the flags a pushf sees after an IF-changing instruction.
const IF_MODULE = [
  '  .text',
  '  .globl after_cli',
  '  .type after_cli, @function',
  'after_cli: sti; cli; pushf; pop %rax; ret',
  '  .size after_cli, . - after_cli',
  '  .globl after_sti',
  '  .type after_sti, @function',
  'after_sti: cli; sti; pushf; pop %rax; cli; ret',
  '  .size after_sti, . - after_sti',
  '  .globl after_popf',
  '  .type after_popf, @function',
  'after_popf: sti; push $0x2; popf; pushf; pop %rax; ret',
  '  .size after_popf, . - after_popf',
  '  .globl pushed_by_pushf',
  '  .type pushed_by_pushf, @function',
  'pushed_by_pushf: sti; pushf; pop %rax; cli; ret',
  '  .size pushed_by_pushf, . - pushed_by_pushf',
].join('\n');

describe('IF modifiers and pushf (is_IF_modifier, resume_execution)', () => {
  it.each([
    ['after_cli', 'cli'],
    ['after_sti', 'sti'],
    ['after_popf', 'popf'],
    ['pushed_by_pushf', 'pushf'],
  ])('should give %s the same flags with its %s probed', (fn, mnemonic) => {
    const plain = bootWithKprobes();
    plain.m.modules.load(assemble(IF_MODULE), 'ifmod.ko');
    const expected = plain.m.kernel.guest.call(0, addr(plain.m, fn), []);
    const { m, k } = bootWithKprobes();
    m.modules.load(assemble(IF_MODULE), 'ifmod.ko');
    const at = boundaries(m, fn).find((i) => i.text.startsWith(mnemonic))!.address;
    let hits = 0;
    k.registerKprobe({
      addr: at,
      preHandler: () => {
        hits++;
        return 0;
      },
    });
    expect(m.kernel.guest.call(0, addr(m, fn), []) & 0x300n).toBe(expected & 0x300n);
    expect(hits).toBe(1);
  });
});

describe('events$', () => {
  it('should publish every step of a kprobe hit in order', () => {
    const { m, k } = bootWithKprobes();
    const events: KprobeEvent[] = [];
    k.events$.subscribe((e) => events.push(e));
    const kp = { symbolName: 'sys_mkdir', preHandler: () => 0, postHandler: () => {} };
    k.registerKprobe(kp);
    run(m, ['mkdir', '/tmp/e']);
    k.unregisterKprobe(kp);
    expect(events.map((e) => e.type)).toEqual([
      'kprobe:registered',
      'kprobe:armed',
      'kprobe:hit',
      'kprobe:pre-handler-ran',
      'kprobe:single-step-begun',
      'kprobe:post-handler-ran',
      'kprobe:resumed',
      'kprobe:unregistered',
      'kprobe:disarmed',
    ]);
    const armed = events[1] as Extract<KprobeEvent, { type: 'kprobe:armed' }>;
    expect([armed.before, armed.after]).toEqual([0x55, 0xcc]); // push %rbp → int3
    expect(events.every((e) => Object.isFrozen(e))).toBe(true);
  });

  it('should show the return-address swap and the trampoline hit of a kretprobe', () => {
    const { m, k } = bootWithKprobes();
    const types: string[] = [];
    k.events$.subscribe((e) => types.push(e.type));
    k.registerKretprobe({ kp: { symbolName: 'sys_mkdir' }, handler: () => {} });
    run(m, ['mkdir', '/tmp/f']);
    expect(types.filter((t) => t.startsWith('kretprobe:'))).toEqual([
      'kretprobe:return-address-swapped',
      'kretprobe:trampoline-hit',
    ]);
  });
});

describe('kprobes/list type letters', () => {
  it('should print k, r and j for kprobes, kretprobes and jprobes', () => {
    const { m, k } = bootWithKprobes();
    k.registerKprobe({ symbolName: 'vfs_read' });
    k.registerKretprobe({ kp: { symbolName: 'vfs_write' } });
    k.registerJprobe({ kp: { symbolName: 'do_sys_open' }, entry: () => {} });
    const px = (a: bigint) => a.toString(16).padStart(16, '0');
    const list = k.debugfs.list();
    expect(list).toContain(`${px(addr(m, 'vfs_read'))}  k  vfs_read+0x0    \n`);
    expect(list).toContain(`${px(addr(m, 'vfs_write'))}  r  vfs_write+0x0    \n`);
    expect(list).toContain(`${px(addr(m, 'do_sys_open'))}  j  do_sys_open+0x0    \n`);
  });
});

describe('consistency checks', () => {
  it.each([
    ['with', true],
    ['without', false],
  ])(
    'should print the kretprobe BUG! report when a return does not match its instance, %s the booster',
    (_, booster) => {
      const { m, k } = bootWithKprobes();
      k.config.kretprobeBooster = booster;
      k.registerKretprobe({ kp: { symbolName: 'sys_mkdir' }, handler: () => {} });
      // At sys_mkdir's ret, move the return address (now the trampoline) 16 bytes down the stack, as a
      // stack-switching bug would: the trampoline is then reached with an sp no instance recorded.
      const ret = boundaries(m, 'sys_mkdir').find((i) => i.text === 'ret')!.address;
      k.registerKprobe({
        addr: ret,
        preHandler: (_p, regs) => {
          const space = regs.cpu.addressSpace;
          space.writeU64(regs.sp - 16n, space.readU64(regs.sp));
          regs.sp -= 16n;
          return 0;
        },
      });
      const t = m.spawn(['mkdir', '/tmp/bug']);
      m.run({ until: () => t.exited });
      expect(m.printk.dmesg()).toMatch(
        /kretprobe BUG!: Processing kretprobe sys_mkdir\+0x0\/0x[0-9a-f]+ @ kretprobe_trampoline\+0x0/,
      );
      expect(m.printk.dmesg()).toMatch(
        /kernel BUG at kernel\/kprobes.c: kretprobe trampoline without a matching instance/,
      );
      // The booster's handler ends in the trampoline's BUG(): a ud2, an invalid opcode oops.
      if (booster) expect(m.printk.dmesg()).toMatch(/invalid opcode.*\n(.*\n)*.*RIP: .*kretprobe_trampoline\+0x1/);
      expect(t.killedBy).toBe(9);
    },
  );

  it('should report a jprobe whose saved stack pointer no longer matches, and kill the task', () => {
    const { m, k } = bootWithKprobes();
    const off = kprobesCore(k).arch.text.savedSpOffset;
    // A guest entry that corrupts the per-CPU jprobe_saved_rsp (by 8) before jprobe_return.
    const source = [
      '  .text',
      '  .globl bad_entry',
      '  .type bad_entry, @function',
      `bad_entry: subq $8, %gs:${off}`,
      '  call jprobe_return',
      '  .size bad_entry, . - bad_entry',
    ].join('\n');
    m.modules.load(assemble(source), 'badjp.ko');
    k.registerJprobe({ kp: { symbolName: 'sys_mkdir' }, entry: addr(m, 'bad_entry') });
    const t = m.spawn(['mkdir', '/tmp/j']);
    m.run({ until: () => t.exited });
    expect(m.printk.dmesg()).toMatch(/current rsp ([0-9a-f]{16}) does not match saved rsp ([0-9a-f]{16})/);
    expect(t.killedBy).toBe(9);
    const next = m.spawn(['hello']);
    m.run({ until: () => next.exited });
    expect(next.exitCode).toBe(0);
  });
});
