import { describe, expect, it } from 'vitest';
import { type BoostInput, decideBoost, initialBoostable } from './decide-boost.js';
import { resumeExecutionPlan } from './resume-execution-plan.js';
import { h } from './x86-test-bytes.fixture.js';

const SLOT = 0xffffffffa0000000n;
const ORIG = 0xffffffff81001000n;

/** The input after stepping `hex` (fell through to `slot + length` unless `ip` says otherwise). */
function input(hex: string, over: Partial<BoostInput> = {}): BoostInput {
  const insn = h(hex);
  return {
    boostable: 0,
    boosting: true,
    hasPostHandler: false,
    plan: resumeExecutionPlan(insn),
    ip: SLOT + BigInt(insn.length),
    slot: SLOT,
    orig: ORIG,
    ...over,
  };
}

describe(initialBoostable, () => {
  it.each([
    ['55', 'push %rbp'],
    ['48 89 e5', 'mov %rsp,%rbp'],
    ['48 8b 05 10 00 00 00', 'RIP-relative mov (displacement fixed in the copy)'],
    ['c3', 'ret'],
    ['fa', 'cli (4.x table: f8..fd)'],
    ['9c', 'pushf'],
  ])('should start %s (%s) boostable but not yet boosted', (hex) => {
    expect(initialBoostable(h(hex), false)).toEqual({ boostable: 0 });
  });

  it.each([
    ['74 03', 'je rel8'],
    ['0f 84 00 01 00 00', 'je rel32'],
    ['e8 00 00 00 00', 'call rel32'],
    ['ff d0', 'call *%rax'],
    ['ff e0', 'jmp *%rax'],
    ['e9 00 00 00 00', 'jmp rel32'],
    ['eb 02', 'jmp rel8'],
    ['e2 fe', 'loop'],
    ['cc', 'int3'],
    ['2e 89 c0', 'CS prefix'],
    ['67 8b 07', 'address-size prefix'],
    ['f4', 'hlt'],
  ])('should refuse %s (%s) at copy time', (hex) => {
    expect(initialBoostable(h(hex), false)).toEqual({ boostable: -1, refusal: 'not-boostable' });
  });

  it('should refuse an address in the exception tables', () => {
    expect(initialBoostable(h('f3 a4'), true)).toEqual({ boostable: -1, refusal: 'exception-table' });
  });
});

describe(decideBoost, () => {
  it('should append a jmp back to the next original instruction for a fall-through copy', () => {
    const d = decideBoost(input('48 89 e5'));
    expect(d).toMatchObject({ boostable: 1, refusal: undefined, jump: { at: SLOT + 3n } });
    expect([...d.jump!.bytes]).toEqual([
      0xe9,
      ...new Uint8Array(new Int32Array([Number(ORIG + 3n - (SLOT + 8n))]).buffer),
    ]);
  });

  it('should boost ret without a jump (ip is already absolute)', () => {
    expect(decideBoost(input('c3', { ip: 0xffffffff81002000n }))).toEqual({
      boostable: 1,
      jump: undefined,
      refusal: undefined,
    });
  });

  it('should leave the state undecided while boosting is off or a post-handler is present', () => {
    expect(decideBoost(input('55', { boosting: false }))).toMatchObject({ boostable: 0, refusal: 'boosting-off' });
    expect(decideBoost(input('55', { hasPostHandler: true }))).toMatchObject({ boostable: 0, refusal: 'post-handler' });
  });

  it('should never boost a copy too long for the jump (len + 5 >= MAX_INSN_SIZE)', () => {
    // movabs $imm64,%rax: 10 bytes fits; with a prefix, 11 does not.
    expect(decideBoost(input('48 b8 01 02 03 04 05 06 07 08'))).toMatchObject({ boostable: 1 });
    expect(decideBoost(input('66 48 b8 01 02 03 04 05 06 07 08'))).toMatchObject({
      boostable: -1,
      refusal: 'does-not-fit',
    });
  });

  it('should never boost when the ip did not move forward in the slot', () => {
    expect(decideBoost(input('55', { ip: SLOT }))).toMatchObject({ boostable: -1, refusal: 'does-not-fit' });
  });

  it('should never boost calls and indirect jumps even if asked', () => {
    expect(decideBoost(input('ff d0', { ip: ORIG }))).toMatchObject({ boostable: -1, refusal: 'not-boostable' });
    expect(decideBoost(input('e8 00 00 00 00'))).toMatchObject({ boostable: -1, refusal: 'not-boostable' });
  });

  it('should never boost when the way back is out of reach', () => {
    expect(decideBoost(input('55', { orig: 0xffff888000000000n }))).toMatchObject({
      boostable: -1,
      refusal: 'out-of-reach',
    });
  });

  it('should change nothing once decided', () => {
    expect(decideBoost(input('55', { boostable: 1 }))).toMatchObject({ boostable: 1, jump: undefined });
    expect(decideBoost(input('55', { boostable: -1 }))).toMatchObject({ boostable: -1, jump: undefined });
  });
});
