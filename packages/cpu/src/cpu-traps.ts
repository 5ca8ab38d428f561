import { type Observable, Subject } from 'rxjs';
import type { AddressSpace } from './address-space.js';
import type { CpuFault } from './cpu-fault.js';
import { CpuFetch } from './cpu-fetch.js';
import { ExceptionVector, exceptionName } from './exception-vector.js';
import type { RunResult } from './run-result.js';
import type { TrapEvent } from './trap-event.js';

/**
 * How the CPU reports an exception: as a RunResult value, and as a frozen `trap:raised` event on
 * `traps$` when someone listens (never per instruction).
 * @see Intel SDM Vol. 3A §6 (interrupt and exception handling)
 */
export class CpuTraps extends CpuFetch {
  readonly id: number;
  private readonly trapSubject = new Subject<TrapEvent>();
  readonly traps$: Observable<TrapEvent> = this.trapSubject.asObservable();

  constructor(addressSpace: AddressSpace, id: number) {
    super(addressSpace);
    this.id = id;
    this.cpuId = id;
  }

  /**
   * Turns a thrown fault into a RunResult. Executors update RIP only after their last access that can
   * fault, so RIP still addresses the faulting instruction here.
   */
  protected fault(e: CpuFault): RunResult {
    if (e.vector === ExceptionVector.PageFault && e.cr2 !== undefined) this.cr2Value = e.cr2;
    return this.exception(e.vector, e.errorCode, e.cr2, false);
  }

  /** Builds the RunResult of an exception at RIP and publishes it on `traps$` if observed. */
  protected exception(
    vector: number,
    errorCode: number | undefined,
    cr2: bigint | undefined,
    singleStep: boolean,
  ): RunResult {
    this.publishTrap(vector, errorCode, cr2);
    return this.exceptionResult(vector, errorCode, cr2, singleStep);
  }

  /**
   * The RunResult of an exception at RIP, already published ({@link publishTrap}): what a trap the
   * host did not resume in place (`Cpu.trapHook`) returns.
   */
  protected exceptionResult(
    vector: number,
    errorCode: number | undefined,
    cr2: bigint | undefined,
    singleStep: boolean,
  ): RunResult {
    const result: RunResult = { reason: 'exception', vector, rip: this.rip };
    if (errorCode !== undefined) result.errorCode = errorCode;
    if (cr2 !== undefined) result.cr2 = cr2;
    if (singleStep) result.singleStep = true;
    return result;
  }

  /**
   * Publishes an exception at RIP on `traps$` as a frozen `trap:raised` event, when someone listens
   * (nothing is built otherwise), and forgets the instruction of a #UD.
   */
  protected publishTrap(vector: number, errorCode: number | undefined, cr2: bigint | undefined): void {
    const insn = this.udInsn;
    this.udInsn = null;
    if (!this.trapSubject.observed) return;
    const ud = vector === ExceptionVector.InvalidOpcode && insn !== null && insn.op === 0 /* Op.Ud */;
    const event: TrapEvent = {
      type: 'trap:raised',
      cpu: this.id,
      vector,
      name: exceptionName(vector),
      rip: this.rip,
      ...(errorCode !== undefined ? { errorCode } : {}),
      ...(cr2 !== undefined ? { cr2 } : {}),
      ...(ud ? { bytes: insn.bytes, mnemonic: insn.mnemonic } : {}),
      retired: this.retiredCount,
    };
    this.trapSubject.next(Object.freeze(event));
  }
}
