import type { Machine, PtRegName, PtRegs } from '@int3/kernel';
import type { FetchContext } from '../probe-events/fetch-context.js';

/** First address of the kernel half of the x86-64 address space (above it, user accessors fail). */
const KERNEL_HALF = 0xffff_8000_0000_0000n;
const U64 = (1n << 64n) - 1n;

/**
 * A {@link FetchContext} over the CPU that hit a probe: registers from its `pt_regs`, memory through its
 * current address space (an unmapped byte reads as a fault, `undefined`), `$comm` from the task running
 * there. One instance per CPU, re-aimed at every hit with {@link MachineFetchContext.at} so a hit
 * allocates nothing here. Kernel reads of user addresses go to the user accessor, as
 * `probe_mem_read()` does below `TASK_SIZE`.
 *
 * @see kernel/trace/trace_kprobe.c process_fetch_insn(), probe_mem_read(), probe_mem_read_user()
 * @see arch/x86/include/asm/ptrace.h regs_get_kernel_stack_nth()
 * @example
 * const ctx = new MachineFetchContext(m).at(regs, undefined);
 * recorder.record(ctx, hit);
 */
export class MachineFetchContext implements FetchContext {
  #regs: PtRegs | undefined;
  /** Return probes: the arguments the entry handler captured; undefined at a kprobe. */
  entryArgs: readonly bigint[] | undefined;

  constructor(private readonly m: Machine) {}

  /** Aims the context at one hit. */
  at(regs: PtRegs, entryArgs: readonly bigint[] | undefined): this {
    this.#regs = regs;
    this.entryArgs = entryArgs;
    return this;
  }

  #current(): PtRegs {
    if (this.#regs === undefined) throw new Error('MachineFetchContext used before at()');
    return this.#regs;
  }

  readRegister(name: string): bigint {
    return this.#current().get(name as PtRegName);
  }

  readKernel(address: bigint, length: number): Uint8Array | undefined {
    const space = this.#current().cpu.addressSpace;
    const a = address & U64;
    if (a + BigInt(length) > U64 + 1n || !space.isMapped(a, length)) return undefined;
    return space.read(a, length);
  }

  readUser(address: bigint, length: number): Uint8Array | undefined {
    const a = address & U64;
    if (a + BigInt(length) > KERNEL_HALF) return undefined;
    return this.readKernel(a, length);
  }

  kernelStackNth(n: number): bigint {
    const bytes = this.readKernel(this.#current().sp + BigInt(8 * n), 8);
    if (!bytes) return 0n;
    return new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true);
  }

  get comm(): string {
    return this.m.sched.current[this.#current().cpu.id]?.comm ?? 'swapper';
  }

  symbolize(address: bigint): string | undefined {
    return this.m.kallsyms.lookup(address) ? this.m.kallsyms.format(address) : undefined;
  }
}
