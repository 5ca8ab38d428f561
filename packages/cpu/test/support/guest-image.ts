import { readFileSync } from 'node:fs';
import { loadElf } from '../../src/elf/load-elf.js';
import { parseElf } from '../../src/elf/parse-elf.js';
import { SymbolTable } from '../../src/elf/symbol-table.js';
import { AddressSpace, Cpu, PageFlags, Reg, type RunResult } from '../../src/index.js';
import type { CallBuffer } from '../../src/testing/corpus-call.js';

/** Stack: 64 KiB, NX, like a kernel thread stack in the vmalloc area. */
export const STACK_BASE = 0xffffc90000000000n;
export const STACK_SIZE = 0x10000;
/** The return address of every call: a Gate page, so the run stops when the function returns. */
export const RETURN_GATE = 0xffffc90000100000n;
/** Buffers passed by pointer: one 4 KiB page per argument slot, in the direct map. */
export const BUFFER_BASE = 0xffff888000000000n;
const BUFFER_SLOT = 0x1000;

const ARG_REGS = [Reg.RDI, Reg.RSI, Reg.RDX, Reg.RCX, Reg.R8, Reg.R9] as const;

/** The result of one guest call. */
export interface GuestCallResult {
  readonly rax: bigint;
  readonly rdx: bigint;
  /** Each buffer's bytes after the call, in the order given. */
  readonly buffers: readonly Uint8Array[];
  /** Instructions retired by the call (the final `ret` included). */
  readonly retired: number;
}

/** A run that did not come back to the return gate. */
export class GuestCallError extends Error {
  constructor(
    message: string,
    readonly result: RunResult,
  ) {
    super(message);
  }
}

/**
 * A gcc-built kernel-style image loaded into its own address space, with a ring-0 CPU to call its
 * functions under the SysV calling convention: arguments in rdi..r9, a return address on a Gate page,
 * buffers mapped in guest memory at fixed addresses.
 */
export class GuestImage {
  readonly space = new AddressSpace();
  readonly cpu: Cpu;
  readonly symbols: SymbolTable;

  /** `jit`: the CPU's (by default with the compiler; false: the interpreter alone). */
  constructor(bytes: Uint8Array, name = 'image.elf', jit?: false) {
    const file = parseElf(bytes, name);
    loadElf(file, this.space);
    this.symbols = SymbolTable.fromElf(file);
    this.space.map(STACK_BASE, STACK_SIZE, PageFlags.Present | PageFlags.Writable | PageFlags.NoExecute);
    this.space.map(RETURN_GATE, 0x1000, PageFlags.Present | PageFlags.Gate);
    this.space.map(BUFFER_BASE, 6 * BUFFER_SLOT, PageFlags.Present | PageFlags.Writable | PageFlags.NoExecute);
    this.cpu = new Cpu(jit === false ? { addressSpace: this.space, jit } : { addressSpace: this.space });
  }

  /** Loads an image from a file. */
  static fromFile(path: string, jit?: false): GuestImage {
    return new GuestImage(new Uint8Array(readFileSync(path)), path, jit);
  }

  /** The address of a symbol; throws when the image has no such symbol. */
  address(name: string): bigint {
    const s = this.symbols.lookup(name);
    if (!s) throw new Error(`no symbol ${name} in the image`);
    return s.address;
  }

  /** The guest address a buffer in argument `slot` is passed at. */
  static bufferAddress(slot: number): bigint {
    return BUFFER_BASE + BigInt(slot * BUFFER_SLOT);
  }

  /**
   * Calls `name` with six argument registers (buffer slots are replaced by the buffers' guest
   * addresses) and runs until it returns to the gate.
   * @throws GuestCallError on a fault, hlt or an exhausted budget
   */
  call(
    name: string,
    args: readonly bigint[],
    buffers: readonly CallBuffer[] = [],
    budget = 50_000_000,
  ): GuestCallResult {
    const { cpu, space } = this;
    const regs = [...args];
    for (const b of buffers) {
      if (b.bytes.length > BUFFER_SLOT) throw new Error(`buffer of ${b.bytes.length} bytes exceeds a slot`);
      const at = GuestImage.bufferAddress(b.slot);
      space.write(at, b.bytes);
      regs[b.slot] = at;
    }
    for (let r = 0; r < 16; r++) cpu.setReg(r as (typeof Reg)[keyof typeof Reg], 0n);
    for (let i = 0; i < ARG_REGS.length; i++) cpu.setReg(ARG_REGS[i], regs[i] ?? 0n);
    const sp = STACK_BASE + BigInt(STACK_SIZE) - 8n;
    space.writeU64(sp, RETURN_GATE);
    cpu.setReg(Reg.RSP, sp);
    cpu.rflags = 0x2;
    cpu.rip = this.address(name);
    const before = cpu.retired;
    const result = cpu.run(budget);
    if (result.reason !== 'gate' || result.rip !== RETURN_GATE) {
      throw new GuestCallError(`${name}: ${this.describe(result)}`, result);
    }
    return {
      rax: cpu.getReg(Reg.RAX),
      rdx: cpu.getReg(Reg.RDX),
      buffers: buffers.map((b) => space.read(GuestImage.bufferAddress(b.slot), b.bytes.length)),
      retired: cpu.retired - before,
    };
  }

  /** A run result in words, with the RIP symbolized. */
  describe(result: RunResult): string {
    const at = `rip=0x${result.rip.toString(16)} (${this.symbols.format(result.rip)})`;
    if (result.reason === 'exception') {
      const code = result.errorCode === undefined ? '' : ` error=0x${result.errorCode.toString(16)}`;
      const cr2 = result.cr2 === undefined ? '' : ` cr2=0x${result.cr2.toString(16)}`;
      return `exception ${result.vector} at ${at}${code}${cr2}`;
    }
    return `${result.reason} at ${at}`;
  }
}
