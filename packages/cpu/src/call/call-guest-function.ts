import { AddressSpace } from '../address-space.js';
import { Cpu } from '../cpu.js';
import type { ElfFile } from '../elf/elf-file.js';
import { loadElf } from '../elf/load-elf.js';
import { PageFlags } from '../page-flags.js';
import { Reg } from '../reg.js';
import type { RunResult } from '../run-result.js';
import { Selector } from '../selector.js';
import type { TrapEvent } from '../trap-event.js';
import { argumentBytes, type CallArgument } from './call-argument.js';

/** Top of the 64 KiB call stack (the kernel's vmalloc area, where Linux puts kernel stacks). */
export const CALL_STACK_TOP = 0xffffc900_00100000n;
/** Size of the call stack. */
export const CALL_STACK_SIZE = 0x10000;
/** The Gate page whose address is the called function's return address. */
export const CALL_RETURN_GATE = 0xffffc900_00200000n;
/** Where pointer arguments (`str`, `buf`, `bytes`) are copied. */
export const CALL_SCRATCH = 0xffffc900_00300000n;

/** The instruction budget of a call when the options give none. */
export const DEFAULT_MAX_INSNS = 1_000_000_000;

const ARG_REGS = [Reg.RDI, Reg.RSI, Reg.RDX, Reg.RCX, Reg.R8, Reg.R9] as const;
const PAGE = 4096;

/** Options of {@link callGuestFunction}. */
export interface CallGuestFunctionOptions {
  /** The instruction budget: past it the call stops with `{ reason: 'budget' }` (default 10^9). */
  readonly maxInsns?: number;
}

/** How a guest call ended. */
export type GuestCallOutcome =
  /** The function returned to the gate: `value` is rax. */
  | { readonly kind: 'returned'; readonly value: bigint }
  /** Anything else: an exception, the budget, a hlt, a gate elsewhere. */
  | { readonly kind: 'stopped'; readonly result: RunResult };

/** The result of {@link callGuestFunction}. */
export interface GuestCall {
  readonly outcome: GuestCallOutcome;
  /** Instructions retired. */
  readonly instructions: number;
  /** Every trap the CPU raised during the call. */
  readonly traps: readonly TrapEvent[];
  /** Guest address of each pointer argument (undefined for integers). */
  readonly pointers: readonly (bigint | undefined)[];
  /** The bytes of each pointer argument after the call, for callers that show what the function wrote. */
  readonly memory: readonly (Uint8Array | undefined)[];
  /** The address space, left as the call left it (for fault descriptions). */
  readonly space: AddressSpace;
}

/**
 * Calls a function of a linked (ET_EXEC) image the way the kernel calls a C function: the image is
 * loaded into a fresh address space, the CPU runs in ring 0 (cs KERNEL_CS, IF clear) on a fresh 64 KiB
 * stack, SysV arguments in rdi, rsi, rdx, rcx, r8, r9 (`str`, `buf` and `bytes` arguments are copied
 * into guest memory and passed by address), and the return address is a Gate page, so the final `ret`
 * stops the CPU. A fault, a `hlt` or the exhausted budget is an outcome, not an exception.
 *
 * @param image the parsed image ({@link parseElf})
 * @param address the function's entry (e.g. `SymbolTable.fromElf(image).lookup(name).address`)
 * @param args at most six arguments
 * @throws RangeError for more than six arguments; ElfError or MemoryError when the image cannot be loaded
 * @see System V AMD64 ABI §3.2.3 (parameter passing), §3.2.2 (stack aligned to 16 at the call)
 * @example
 * const elf = parseElf(readFileSync(sampleElfUrl()));
 * const crc32 = SymbolTable.fromElf(elf).lookup('hash_crc32')!.address;
 * const call = callGuestFunction(elf, crc32, [{ kind: 'str', text: '123456789' }, { kind: 'int', value: 9n }]);
 * call.outcome; // { kind: 'returned', value: 3421780262n }
 */
export function callGuestFunction(
  image: ElfFile,
  address: bigint,
  args: readonly CallArgument[] = [],
  options: CallGuestFunctionOptions = {},
): GuestCall {
  const call = startGuestCall(image, address, args);
  call.run(options.maxInsns ?? DEFAULT_MAX_INSNS);
  return call.finish();
}

/**
 * A guest call in progress ({@link startGuestCall}): run it in as many stretches of instructions as
 * the caller likes (a host that yields to its event loop between them), then {@link finish} it.
 * Running in stretches changes nothing the guest sees.
 */
export class GuestCallRun {
  private result: RunResult | undefined;
  private readonly traps: TrapEvent[] = [];
  private readonly subscription: { unsubscribe(): void };

  constructor(
    private readonly cpu: Cpu,
    private readonly space: AddressSpace,
    private readonly pointers: readonly (bigint | undefined)[],
    private readonly data: readonly (Uint8Array | undefined)[],
  ) {
    this.subscription = cpu.traps$.subscribe((event) => this.traps.push(event));
  }

  /** True once the call stopped for any reason but the budget of a stretch (it returned, faulted, …). */
  get ended(): boolean {
    return this.result !== undefined && this.result.reason !== 'budget';
  }

  /** Instructions retired so far. */
  get instructions(): number {
    return this.cpu.retired;
  }

  /** Where the CPU is (the next instruction). */
  get rip(): bigint {
    return this.cpu.rip;
  }

  /** Runs at most `budget` more instructions; returns {@link ended}. */
  run(budget: number): boolean {
    if (this.ended) return true;
    this.result = this.cpu.run(budget);
    return this.ended;
  }

  /** The call's result: its outcome as the last stretch left it (`budget` when it never ended). */
  finish(): GuestCall {
    this.subscription.unsubscribe();
    const result = this.result ?? { reason: 'budget' as const, rip: this.cpu.rip };
    const cpu = this.cpu;
    const returned = result.reason === 'gate' && result.rip === CALL_RETURN_GATE;
    return {
      outcome: returned
        ? { kind: 'returned', value: BigInt.asUintN(64, cpu.getReg(Reg.RAX)) }
        : { kind: 'stopped', result },
      instructions: cpu.retired,
      traps: this.traps,
      pointers: this.pointers,
      memory: this.pointers.map((p, i) => (p === undefined ? undefined : this.space.read(p, this.data[i]!.length))),
      space: this.space,
    };
  }
}

/**
 * Sets up a call as {@link callGuestFunction} does, without running it: the caller runs it in
 * stretches ({@link GuestCallRun.run}) and finishes it.
 *
 * @example
 * const call = startGuestCall(elf, address, args);
 * while (!call.run(1_000_000)) await new Promise((r) => setImmediate(r));
 * call.finish().outcome;
 */
export function startGuestCall(image: ElfFile, address: bigint, args: readonly CallArgument[] = []): GuestCallRun {
  if (args.length > ARG_REGS.length) throw new RangeError(`at most ${ARG_REGS.length} arguments`);
  // Step 1: a fresh address space with the image, a stack, the return gate and the scratch area.
  const space = new AddressSpace();
  loadElf(image, space);
  const data = args.map(argumentBytes);
  space.map(
    CALL_STACK_TOP - BigInt(CALL_STACK_SIZE),
    CALL_STACK_SIZE,
    PageFlags.Present | PageFlags.Writable | PageFlags.NoExecute,
  );
  space.map(CALL_RETURN_GATE, PAGE, PageFlags.Present | PageFlags.Gate);
  const pointers = placeArguments(space, data);
  // Step 2: the CPU in ring 0 with the arguments and the return address pushed.
  const cpu = new Cpu({ addressSpace: space });
  cpu.cs = Selector.KERNEL_CS;
  cpu.ss = Selector.KERNEL_DS;
  cpu.rflags = 0x2;
  const rsp = CALL_STACK_TOP - 16n - 8n;
  space.writeU64(rsp, CALL_RETURN_GATE);
  cpu.setReg(Reg.RSP, rsp);
  args.forEach((arg, i) => {
    cpu.setReg(ARG_REGS[i], arg.kind === 'int' ? arg.value : pointers[i]!);
  });
  cpu.rip = address;
  // Step 3: the caller runs it, recording traps (the stream is observed only for this call).
  return new GuestCallRun(cpu, space, pointers, data);
}

/** Copies each pointer argument into the scratch area, each 16-byte aligned. */
function placeArguments(space: AddressSpace, data: readonly (Uint8Array | undefined)[]): (bigint | undefined)[] {
  let offset = 0;
  const offsets = data.map((d) => {
    if (d === undefined) return undefined;
    const at = offset;
    offset += (d.length + 15) & ~15;
    return at;
  });
  if (!data.some((d) => d !== undefined)) return data.map(() => undefined);
  const size = Math.max(PAGE, Math.ceil(offset / PAGE) * PAGE);
  space.map(CALL_SCRATCH, size, PageFlags.Present | PageFlags.Writable | PageFlags.NoExecute);
  return offsets.map((at, i) => {
    if (at === undefined) return undefined;
    const address = CALL_SCRATCH + BigInt(at);
    if (data[i]!.length > 0) space.write(address, data[i]!);
    return address;
  });
}
