import type { PtRegs } from '@int3/kernel';
import type { TracerView } from '../view/tracer-view.js';

/** The kernel's cap on saved stack entries per trace. @see kernel/trace/trace.h FTRACE_STACK_ENTRIES */
export const FTRACE_STACK_ENTRIES = 8192 / 8;

/** What unwinding reads: registers, memory and symbols. */
export type UnwindView = Pick<TracerView, 'regs' | 'memory' | 'symbols'>;

function isText(view: UnwindView, address: bigint): boolean {
  const loc = view.symbols.lookup(address);
  return loc !== undefined && (loc.sym.type === 't' || loc.sym.type === 'T');
}

/** An aligned 8-byte read of the CPU's address space, undefined if unaligned or unmapped. */
function readWord(view: UnwindView, cpu: number, address: bigint): bigint | undefined {
  if ((address & 7n) !== 0n) return undefined;
  return view.memory.readU64(cpu, address);
}

/**
 * The kernel call chain at a probe hit, innermost first, from the frame pointers: the probed
 * instruction (`regs->ip`), then each return address. At a function's first instruction the frame is
 * not set up yet, so the caller's return address is read at `%rsp`; one byte in, after the
 * `push %rbp` that gcc's -fno-omit-frame-pointer prologue starts with, at `%rsp+8`; further in, the
 * `%rbp` chain gives everything (`[rbp+8]` the return address, `[rbp]` the next frame). The walk
 * stops at a return address outside kernel text (the user's side of a system call), at a frame
 * pointer that is unmapped, unaligned or not above the last one, or at `max` entries.
 *
 * @see arch/x86/kernel/unwind_frame.c unwind_next_frame(), arch/x86/kernel/stacktrace.c arch_stack_walk()
 * @example
 * const calls = unwindFramePointers(view, regs, probeAddr); // [vfs_read+1, ksys_read+0x3f, …]
 */
export function unwindFramePointers(
  view: UnwindView,
  regs: PtRegs,
  probeAddr: bigint,
  max = FTRACE_STACK_ENTRIES,
): bigint[] {
  const cpu = view.regs.smpProcessorId(regs);
  const out: bigint[] = [view.regs.get(regs, 'ip')];
  const sp = view.regs.get(regs, 'sp');
  let bp = view.regs.get(regs, 'bp');
  const loc = view.symbols.lookup(probeAddr);
  // Where the probe sits in the prologue decides where the caller's return address is (the code
  // bytes themselves may be an int3 now, so the offset decides, not the bytes).
  if (loc !== undefined && loc.offset <= 1) {
    const ret = readWord(view, cpu, sp + BigInt(8 * loc.offset));
    if (ret === undefined || !isText(view, ret)) return out;
    out.push(ret);
  }
  let last = 0n;
  while (out.length < max && bp > last) {
    const ret = readWord(view, cpu, bp + 8n);
    const next = readWord(view, cpu, bp);
    if (ret === undefined || next === undefined || !isText(view, ret)) break;
    out.push(ret);
    last = bp;
    bp = next;
  }
  return out;
}
