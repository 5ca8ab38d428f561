import { AddressSpace, Cpu, loadElf, PageFlags, Reg, type RunResult, Selector, type TrapEvent } from '@int3/cpu';
import { argumentBytes, type CallArgument } from './call-argument.js';
import type { GuestImage } from './load-image.js';

/** Top of the 64 KiB call stack (the kernel's vmalloc area, where Linux puts kernel stacks). */
export const CALL_STACK_TOP = 0xffffc900_00100000n;
/** Size of the call stack. */
export const CALL_STACK_SIZE = 0x10000;
/** The Gate page whose address is the called function's return address. */
export const CALL_RETURN_GATE = 0xffffc900_00200000n;
/** Where `str:`/`buf:` arguments are copied. */
export const CALL_SCRATCH = 0xffffc900_00300000n;

const ARG_REGS = [Reg.RDI, Reg.RSI, Reg.RDX, Reg.RCX, Reg.R8, Reg.R9] as const;
const PAGE = 4096;

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
 * Calls a function of a linked image the way the kernel calls a C function: ring 0 (cs KERNEL_CS,
 * IF clear) on a fresh 64 KiB stack, SysV arguments in rdi, rsi, rdx, rcx, r8, r9, and a return
 * address on a Gate page so the final `ret` stops the CPU with `{ reason: 'gate' }`.
 *
 * @param maxInsns the instruction budget (the run stops with `{ reason: 'budget' }`)
 * @see System V AMD64 ABI §3.2.3 (parameter passing), §3.2.2 (stack aligned to 16 at the call)
 * @example
 * const call = callGuestFunction(image, image.symbols.lookup('div_s64')!.address, [int(-100n), int(7n)], 1e6);
 */
export function callGuestFunction(
  image: GuestImage,
  address: bigint,
  args: readonly CallArgument[],
  maxInsns: number,
): GuestCall {
  if (args.length > ARG_REGS.length) throw new RangeError(`at most ${ARG_REGS.length} arguments`);
  // Step 1: a fresh address space with the image, a stack, the return gate and the scratch area.
  const space = new AddressSpace();
  loadElf(image.file, space);
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
  // Step 3: run, recording traps (the stream is observed only for this call).
  const traps: TrapEvent[] = [];
  const subscription = cpu.traps$.subscribe((event) => traps.push(event));
  let result: RunResult;
  try {
    result = cpu.run(maxInsns);
  } finally {
    subscription.unsubscribe();
  }
  const returned = result.reason === 'gate' && result.rip === CALL_RETURN_GATE;
  return {
    outcome: returned
      ? { kind: 'returned', value: BigInt.asUintN(64, cpu.getReg(Reg.RAX)) }
      : { kind: 'stopped', result },
    instructions: cpu.retired,
    traps,
    pointers,
    memory: pointers.map((p, i) => (p === undefined ? undefined : space.read(p, data[i]!.length))),
    space,
  };
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
