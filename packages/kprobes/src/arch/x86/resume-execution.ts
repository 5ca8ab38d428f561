import { Rflags } from '@int3/cpu';
import type { PtRegs } from '@int3/kernel';
import type { ControlBlock } from '../../core/control-block.js';
import type { KprobeEventSink } from '../../core/event-sink.js';
import type { ProbeSite } from '../../core/probe-site.js';
import { applyResumeFixups } from './apply-resume-fixups.js';
import type { ResumeExecutionPlan } from './resume-execution-plan.js';
import type { X86Site } from './x86-site.js';

/** What each fix-up does, for the `kprobe:resumed` event. */
const FIXUP_TEXT: Record<ResumeExecutionPlan['type'], string> = {
  pushf: 'pushf: TF/IF restored in the pushed flags; ip += orig - copy',
  'call-rel32': 'call: pushed return address moved to the original; ip += orig - copy',
  'absolute-ip': 'ip already absolute (ret/iret/far jmp)',
  'call-indirect': 'call indirect (ff /2): pushed return address moved to the original; ip already absolute',
  'jmp-indirect': 'jmp indirect (ff /4): ip already absolute',
  generic: 'ip += orig - copy',
};

/**
 * `resume_execution`: undo what running the copy at the slot's address changed — TF off, then the
 * plan's fix-up (the generic case on int32 halves, without a bigint: ip += orig - copy).
 * @see arch/x86_64/kernel/kprobes.c resume_execution() (2.6.12)
 */
export function resumeExecution(
  k: KprobeEventSink,
  cpu: number,
  site: ProbeSite,
  regs: PtRegs,
  kcb: ControlBlock,
): void {
  const x = site.arch as X86Site;
  regs.flags &= ~Rflags.TF;
  if (x.plan.type === 'generic') {
    const c = regs.cpu;
    const lo = (c.ripLow >>> 0) + x.resumeDelta;
    const carry = Math.floor(lo / 0x1_0000_0000);
    c.setRipHalves(lo | 0, (c.ripHigh + carry) | 0);
  } else {
    const space = regs.cpu.addressSpace;
    regs.ip = applyResumeFixups(x.plan, {
      ip: regs.ip,
      sp: regs.sp,
      slot: x.slot,
      orig: site.addr,
      oldFlags: BigInt(kcb.oldFlags),
      boostable: -1,
      readU64: (a) => space.readU64(a),
      writeU64: (a, v) => space.writeU64(a, v),
    }).ip;
  }
  if (k.observed) {
    k.emit({
      type: 'kprobe:resumed',
      at: kcb.at,
      cpu,
      addr: site.addr,
      symbol: site.symbol,
      fixup: FIXUP_TEXT[x.plan.type],
      ip: regs.ip,
    });
  }
}
