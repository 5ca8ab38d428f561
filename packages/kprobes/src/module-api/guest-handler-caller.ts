import { KernelError, PT_REGS_SIZE, type PtRegs } from '@int3/kernel';
import type { KprobesHost } from '../core/kprobes-host.js';
import { HANDLER_STACK_GAP } from './guest-layout.js';

/**
 * Calls a probe's guest handler (a C function of a module) from a trap: the trapping CPU's registers
 * are stored as a `struct pt_regs` on its own stack, below the stack pointer, the handler runs below
 * that as instrumentation (no virtual time), and the frame is loaded back, so a handler that changes
 * `regs->ax` or `regs->ip` changes what the CPU resumes with. A handler that oopses does not take the
 * machine down: it is reported and counts as having returned 0.
 *
 * @see kernel/kprobes.c aggr_pre_handler() (handlers are called with the trap's pt_regs)
 */
export class GuestHandlerCaller {
  /** Handler calls that oopsed (or ran away), in total. */
  failures = 0;

  constructor(private readonly m: Pick<KprobesHost, 'guest' | 'log' | 'kallsyms'>) {}

  /**
   * Runs `fn(first, regs, extra?)` for the trap `regs` describes; returns its `int` result, or 0 when
   * it failed. `what` names the handler in a failure report.
   */
  call(regs: PtRegs, fn: bigint, first: bigint, extra: bigint | undefined, what: () => string): number {
    const m = this.m;
    const cpu = regs.cpu.id;
    const space = regs.cpu.addressSpace;
    const frame = (regs.sp - HANDLER_STACK_GAP - BigInt(PT_REGS_SIZE)) & ~0xfn;
    if (!space.isMapped(frame, PT_REGS_SIZE)) {
      this.fail(cpu, `no room for pt_regs below sp 0x${regs.sp.toString(16)}`, fn, what);
      return 0;
    }
    regs.store(space, frame);
    let rax: bigint;
    // The clock stands still while the handler runs (rather than running and being refunded after),
    // so what the handler printks is stamped with the time of the hit and dmesg stays monotonic.
    const c = regs.cpu;
    const wasInstrumentation = c.instrumentationMode;
    c.instrumentationMode = true;
    try {
      const args = extra === undefined ? [first, frame] : [first, frame, extra];
      rax = m.guest.call(cpu, fn, args, { instrumentation: true, stackTop: frame });
    } catch (e) {
      if (!(e instanceof KernelError)) throw e;
      this.fail(cpu, e.message, fn, what);
      return 0;
    } finally {
      c.instrumentationMode = wasInstrumentation;
    }
    regs.load(space, frame);
    return Number(BigInt.asIntN(32, rax));
  }

  private fail(cpu: number, why: string, fn: bigint, what: () => string): void {
    this.failures++;
    const m = this.m;
    m.log(cpu, 4, `kprobes: ${what()} handler ${m.kallsyms.format(fn)} failed (${why}); treated as returning 0`);
  }
}
