import { type Cpu, ExceptionVector, type Insn, Reg } from '@int3/cpu';
import { KernelError } from '../kernel-error.js';
import type { Scheduler } from '../sched/scheduler.js';
import type { PtRegs } from '../traps/pt-regs.js';
import type { OopsInfo } from '../traps/trap-router.js';
import {
  HOST_CALL_JUMPED,
  type HostCallContext,
  type HostCallResult,
  type HostCalls,
  type HostGate,
} from './host-calls.js';

/** What the {@link GateDispatcher} needs: the CPUs and their pt_regs, the gate table, the scheduler, an oops. */
export interface GateDispatcherHost {
  readonly cpus: readonly Cpu[];
  readonly regs: readonly PtRegs[];
  readonly hostCalls: Pick<HostCalls, 'lookupHalves' | 'inlineHalves'>;
  readonly sched: Pick<Scheduler, 'current' | 'switchOut' | 'block'>;
  /** Reports an oops for the task running on `cpu` (a call to an unbound gate). */
  oops(cpu: number, info: OopsInfo): void;
}

/** What a decoded gate caches when no inline gate is bound there (the run loop exits at it). */
const NOT_INLINE = Object.freeze({ inline: false as const });

/**
 * Runs host services at their gates: a gate exit of a running task (whose service may block, yield or
 * exit it), a gate inside a host-to-guest call, and `inline` gates run in place inside the CPU's loop.
 * Each CPU has one reused call context, so a gate call allocates nothing.
 *
 * @see image/ABI.md §3
 */
export class GateDispatcher {
  private readonly contexts: readonly HostCallContext[];

  constructor(private readonly host: GateDispatcherHost) {
    this.contexts = host.regs.map((regs, cpu) => ({
      cpu,
      regs,
      arg: (n: number) => regs.argument(n, host.cpus[cpu].addressSpace),
    }));
    for (const c of host.cpus) c.gateHook = (cpu, gate) => this.inlineGate(cpu, gate);
  }

  /** Runs a host service for `cpu` with that CPU's reused call context. */
  call(cpu: number, gate: HostGate): HostCallResult {
    return gate.handler(this.contexts[cpu]);
  }

  /**
   * Completes a gate call: rax = result (unless undefined), then `ret`; after {@link HOST_CALL_JUMPED}
   * nothing (the service has put the CPU where it goes on).
   */
  complete(cpu: number, result: bigint | number | undefined | typeof HOST_CALL_JUMPED): void {
    if (typeof result === 'object') return;
    const c = this.host.cpus[cpu];
    if (result !== undefined) c.setReg(Reg.RAX, BigInt.asUintN(64, BigInt(result)));
    const rsp = c.getReg(Reg.RSP);
    c.rip = c.addressSpace.readU64(rsp);
    c.setReg(Reg.RSP, rsp + 8n);
  }

  /** Handles the gate exit of a running task (the CPU's rip is the gate); false when the task left the CPU. */
  handle(cpu: number): boolean {
    const { cpus, hostCalls, sched } = this.host;
    const c = cpus[cpu];
    const gate = hostCalls.lookupHalves(c.ripLow, c.ripHigh);
    if (!gate) {
      this.host.oops(cpu, {
        vector: ExceptionVector.GeneralProtection,
        errorCode: 0,
        reason: `call to an unbound host gate at 0x${c.rip.toString(16)}`,
      });
      return sched.current[cpu] !== undefined;
    }
    const result = this.call(cpu, gate);
    if (typeof result === 'object' && !('jumped' in result)) {
      if ('exit' in result) return false;
      if ('yield' in result) {
        this.complete(cpu, 0n);
        sched.switchOut(cpu);
        return false;
      }
      this.complete(cpu, undefined);
      sched.block(cpu, result.block);
      return false;
    }
    this.complete(cpu, result);
    return true;
  }

  /**
   * The CPUs' gate hook: runs an `inline` gate in place, inside the CPU's run loop (its handler moves
   * rip); false for every other gate, which exits the loop as usual.
   */
  private inlineGate(c: Cpu, insn: Insn): boolean {
    // The binding is looked up once per decoded gate and cached on it (HostCalls drops the decoded
    // gate when it binds or unbinds there).
    let cached = insn.gate as HostGate | typeof NOT_INLINE | null;
    if (cached === null) {
      cached = this.host.hostCalls.inlineHalves(c.ripLow, c.ripHigh) ?? NOT_INLINE;
      insn.gate = cached;
    }
    if (cached === NOT_INLINE) return false;
    const gate = cached as HostGate;
    if (gate.handler(this.contexts[c.id]) !== HOST_CALL_JUMPED) {
      throw new KernelError(
        'EINVAL',
        `inline host gate ${gate.name} did not move rip (it must answer HOST_CALL_JUMPED)`,
      );
    }
    return true;
  }
}
