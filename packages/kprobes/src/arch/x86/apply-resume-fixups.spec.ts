import { describe, expect, it } from 'vitest';
import { applyResumeFixups, type ResumeContext } from './apply-resume-fixups.js';
import { resumeExecutionPlan } from './resume-execution-plan.js';
import { h } from './x86-test-bytes.fixture.js';

const ORIG = 0xffffffff81001000n;
const SLOT = 0xffffffffa0000000n;
const SP = 0xffffc90000003f00n;

/** A one-word stack at SP holding `tos`, and the context around it. */
function setup(tos: bigint, over: Partial<ResumeContext> = {}) {
  const stack = new Map<bigint, bigint>([[SP, tos]]);
  const ctx: ResumeContext = {
    ip: SLOT,
    sp: SP,
    slot: SLOT,
    orig: ORIG,
    oldFlags: 0n,
    readU64: (a) => stack.get(a) ?? 0n,
    writeU64: (a, v) => void stack.set(a, v),
    ...over,
  };
  return { ctx, tos: () => stack.get(SP) };
}

describe(applyResumeFixups, () => {
  it('should move ip back to the original code after a plain instruction', () => {
    const { ctx, tos } = setup(0x1234n, { ip: SLOT + 3n });
    const out = applyResumeFixups(resumeExecutionPlan(h('48 89 e5')), ctx);
    expect(out).toEqual({ ip: ORIG + 3n, boostable: -1, boostJump: undefined });
    expect(tos()).toBe(0x1234n);
  });

  it('should give pushf the pre-probe TF and IF in the pushed image', () => {
    // The copy ran with TF set and IF clear; before the probe IF was set and TF clear.
    const { ctx, tos } = setup(0x146n | 0x100n, { ip: SLOT + 1n, oldFlags: 0x200n });
    const out = applyResumeFixups(resumeExecutionPlan(h('9c')), ctx);
    expect(tos()).toBe(0x246n);
    expect(out.ip).toBe(ORIG + 1n);
  });

  it('should fix the return address and the target of call rel32', () => {
    // Stepping `call rel32` in the slot pushed slot+5 and jumped to slot+5+rel.
    const { ctx, tos } = setup(SLOT + 5n, { ip: SLOT + 5n + 0x100n });
    const out = applyResumeFixups(resumeExecutionPlan(h('e8 00 01 00 00')), ctx);
    expect(tos()).toBe(ORIG + 5n);
    expect(out.ip).toBe(ORIG + 5n + 0x100n);
  });

  it.each([
    { bytes: 'ff d0', asm: 'call *%rax', len: 2n },
    { bytes: 'ff 53 10', asm: 'call *0x10(%rbx)', len: 3n },
    { bytes: '41 ff d3', asm: 'call *%r11', len: 3n },
  ])('should fix only the return address of $asm and leave the absolute ip alone', ({ bytes, len }) => {
    const target = 0xffffffff81234560n;
    const { ctx, tos } = setup(SLOT + len, { ip: target, boostable: 0 });
    const out = applyResumeFixups(resumeExecutionPlan(h(bytes)), ctx);
    expect(tos()).toBe(ORIG + len);
    // Not boostable: the state stays 0 (never 1) so the probe keeps single-stepping.
    expect(out).toEqual({ ip: target, boostable: 0, boostJump: undefined });
  });

  it('should show what the 2.6.16 bug did to call *%rax: a generic fixup of an absolute target', () => {
    const target = 0xffffffff81234560n;
    const { ctx, tos } = setup(SLOT + 2n, { ip: target });
    const buggy = applyResumeFixups({ type: 'generic' }, ctx);
    expect(buggy.ip).toBe(target + ORIG - SLOT);
    expect(tos()).toBe(SLOT + 2n);
  });

  it.each([
    { bytes: 'ff e0', asm: 'jmp *%rax' },
    { bytes: 'ff 24 c5 00 00 00 82', asm: 'jmp *-0x7e000000(,%rax,8)' },
    { bytes: 'c3', asm: 'ret' },
    { bytes: 'c2 08 00', asm: 'ret $8' },
    { bytes: '48 cf', asm: 'iretq' },
  ])('should keep the absolute ip of $asm and mark it boostable', ({ bytes }) => {
    const target = 0xffffffff81500000n;
    const { ctx, tos } = setup(0x77n, { ip: target });
    expect(applyResumeFixups(resumeExecutionPlan(h(bytes)), ctx)).toEqual({
      ip: target,
      boostable: 1,
      boostJump: undefined,
    });
    expect(tos()).toBe(0x77n);
  });

  it('should boost a short boostable instruction lazily with a jump back after the copy', () => {
    const { ctx } = setup(0n, { ip: SLOT + 3n, boostable: 0 });
    const out = applyResumeFixups(resumeExecutionPlan(h('48 89 e5')), ctx);
    expect(out.boostable).toBe(1);
    expect(out.boostJump?.at).toBe(SLOT + 3n);
    const rel = new DataView(out.boostJump!.bytes.buffer).getInt32(1, true);
    expect(SLOT + 3n + 5n + BigInt(rel)).toBe(ORIG + 3n);
  });

  it('should give up boosting when copy plus jump would not fit in 16 bytes', () => {
    const { ctx } = setup(0n, { ip: SLOT + 11n, boostable: 0 });
    const out = applyResumeFixups(resumeExecutionPlan(h('48 c7 05 f0 ff ff ff 01 00 00 00')), ctx);
    expect(out).toEqual({ ip: ORIG + 11n, boostable: -1, boostJump: undefined });
  });
});
