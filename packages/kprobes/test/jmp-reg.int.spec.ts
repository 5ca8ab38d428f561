import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IMAGE_DIR } from '@int3/kernel';
import { describe, expect, it } from 'vitest';
import type { KprobeEvent } from '../src/core/kprobe-event.js';
import { bootWithKprobes, boundaries, findInsn } from './support/machine.js';

/** `jmp_reg.ko`: the indirect branches gcc does not emit here, written in assembly (`jmp_reg.S`). */
const JMP_REG_KO = new Uint8Array(readFileSync(join(IMAGE_DIR, 'modules', 'kprobes', 'jmp_reg.ko')));

const JMP_FIXUP = 'jmp indirect (ff /4): ip already absolute';
const CALL_FIXUP = 'call indirect (ff /2): pushed return address moved to the original; ip already absolute';

/** Each probed instruction: the function, its bytes, what the function returns, the resume fixup. */
const CASES = [
  { fn: 'int3_jmp_reg', insn: 'ffe0', asm: 'jmp *%rax', result: (x: bigint) => 3n * x + 7n, fixup: JMP_FIXUP },
  { fn: 'int3_call_reg', insn: 'ffd0', asm: 'call *%rax', result: (x: bigint) => 2n * x + 2n, fixup: CALL_FIXUP },
  { fn: 'int3_call_mem', insn: 'ff15', asm: 'call *mem(%rip)', result: (x: bigint) => 2n * x + 3n, fixup: CALL_FIXUP },
  {
    fn: 'int3_jmp_table',
    insn: 'ff24fd',
    asm: 'jmp *table(,%rdi,8)',
    result: (x: bigint) => x + 100n * (x & 3n),
    fixup: JMP_FIXUP,
  },
] as const;

const INPUTS = [0n, 1n, 2n, 3n, 41n, -5n, 0x7fff_ffffn];

function load() {
  const { m, k } = bootWithKprobes();
  m.modules.load(JMP_REG_KO, 'jmp_reg.ko');
  const call = (fn: string, x: bigint) =>
    BigInt.asIntN(64, m.kernel.guest.call(0, m.kallsyms.lookupName(fn)!.address, [x]));
  return { m, k, call };
}

describe('a kprobe on an indirect branch (resume_execution by the ModRM reg field)', () => {
  it.each(CASES)('should compute $fn unprobed as the assembly says', ({ fn, result }) => {
    const { call } = load();
    for (const x of INPUTS) expect(call(fn, x), `${fn}(${x})`).toBe(result(x));
  });

  it.each(CASES)(
    'should hit, single-step and resume $asm in $fn with the result unchanged',
    ({ fn, insn, result, fixup }) => {
      const { m, k, call } = load();
      const at = findInsn(m, fn, insn);
      const events: KprobeEvent[] = [];
      const sub = k.events$.subscribe((e) => {
        if ('addr' in e && e.addr === at) events.push(e);
      });
      let pre = 0;
      let post = 0;
      k.registerKprobe({ addr: at, preHandler: () => void pre++, postHandler: () => void post++ });
      for (const x of INPUTS) expect(call(fn, x), `${fn}(${x}) probed at ${m.kallsyms.format(at)}`).toBe(result(x));
      sub.unsubscribe();
      expect([pre, post]).toEqual([INPUTS.length, INPUTS.length]);
      const perHit = events.filter((e) => e.type !== 'kprobe:registered' && e.type !== 'kprobe:armed');
      expect(perHit.slice(0, 5).map((e) => e.type)).toEqual([
        'kprobe:hit',
        'kprobe:pre-handler-ran',
        'kprobe:single-step-begun',
        'kprobe:post-handler-ran',
        'kprobe:resumed',
      ]);
      const resumed = events.filter((e) => e.type === 'kprobe:resumed');
      expect(resumed).toHaveLength(INPUTS.length);
      for (const r of resumed) expect(r.fixup).toBe(fixup);
    },
  );

  it('should resume a probed jmp *%rax at the register target, not relative to the slot', () => {
    const { m, k, call } = load();
    const [, jmp, , target] = boundaries(m, 'int3_jmp_reg');
    expect(jmp.text).toMatch(/^jmp\s+\*%rax$/);
    const ips: bigint[] = [];
    k.events$.subscribe((e) => {
      if (e.type === 'kprobe:resumed') ips.push(e.ip);
    });
    k.registerKprobe({ addr: jmp.address, preHandler: () => 0 });
    expect(call('int3_jmp_reg', 5n)).toBe(22n);
    expect(ips).toEqual([target.address]);
  });

  it('should return from a probed call *%rax to the original code, the pushed address fixed', () => {
    const { m, k, call } = load();
    const callAt = findInsn(m, 'int3_call_reg', 'ffd0');
    const helper = m.kallsyms.lookupName('int3_twice_plus_one')!.address;
    const pushed: bigint[] = [];
    // At the callee's entry, the return address on the stack must point after the original call.
    k.registerKprobe({ addr: helper, preHandler: (_p, regs) => void pushed.push(m.space.readU64(regs.sp)) });
    k.registerKprobe({ addr: callAt, preHandler: () => 0 });
    expect(call('int3_call_reg', 20n)).toBe(42n);
    expect(pushed).toEqual([callAt + 2n]);
  });

  it('should count one hit per call at the jump target of every jump-table entry', () => {
    const { m, k, call } = load();
    const targets = boundaries(m, 'int3_jmp_table').slice(3);
    const hits = new Map<bigint, number>();
    for (const t of targets)
      k.registerKprobe({ addr: t.address, preHandler: () => void hits.set(t.address, (hits.get(t.address) ?? 0) + 1) });
    k.registerKprobe({ addr: findInsn(m, 'int3_jmp_table', 'ff24fd'), preHandler: () => 0 });
    for (const x of [0n, 1n, 2n, 3n]) expect(call('int3_jmp_table', x)).toBe(x + 100n * x);
    // x & 3 = n enters the chain n adds before the ret: the first add runs for n = 3 only, the ret always.
    expect(targets.map((t) => hits.get(t.address) ?? 0)).toEqual([1, 2, 3, 4]);
  });
});
