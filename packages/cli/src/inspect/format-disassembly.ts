import { type AddressSpace, disassemble } from '@int3/cpu';
import type { Kprobes, ProbeSite } from '@int3/kprobes';

/** What {@link formatDisassembly} shows. */
export interface DisassemblyRange {
  /** Where decoding starts (an instruction boundary: a function's start, or rip itself). */
  readonly start: bigint;
  readonly size: number;
  /** The instruction marked `=>` (rip), and how many instructions to show around it. */
  readonly rip?: bigint;
  readonly before?: number;
  readonly after?: number;
}

/**
 * Disassembly lines as `int3 disasm` prints them (iced-x86, AT&T): `  addr:  bytes  text`, the
 * original instructions shown under an armed probe's int3 and under a jump-optimized probe's jmp,
 * each probe point marked with the slot of its copy or its detour buffer; the instruction at `rip`
 * starts with `=>`. With `rip`, only `before` instructions before
 * it and `after` after it are kept, and none when decoding from `start` never lands on `rip`.
 *
 * @see arch/x86/kernel/kprobes/core.c arch_prepare_kprobe() (the copied instruction)
 * @example
 * formatDisassembly(m.space, kprobes, { start: sym.address, size: sym.size });
 */
export function formatDisassembly(space: AddressSpace, kprobes: Kprobes, range: DisassemblyRange): string[] {
  const { start, size } = range;
  const bytes = space.read(start, size).slice();
  // Show the original instructions: an armed probe's int3 stands over the first byte, and a
  // jump-optimized probe's rel32 over the next four (recover_probed_instruction).
  kprobes.recoverProbedInstruction(start, bytes);
  const sites = [...kprobes.sites()].filter((s) => s.addr >= start && s.addr < start + BigInt(size));
  let lines: string[] = [];
  let at = -1;
  for (const insn of disassemble(bytes, start)) {
    const site = sites.find((s) => s.addr === insn.address);
    const mark = site ? `  <- kprobe (${probeState(kprobes, site)})` : '';
    if (insn.address === range.rip) at = lines.length;
    const lead = insn.address === range.rip ? '=>' : '  ';
    lines.push(`${lead}${insn.address.toString(16)}:  ${insn.bytes.padEnd(24)} ${insn.text}${mark}`);
  }
  if (range.rip !== undefined) {
    // rip off the instruction boundaries decoded from `start` (code in a slot page, data before it).
    if (at < 0) return [];
    lines = lines.slice(Math.max(0, at - (range.before ?? 5)), at + 1 + (range.after ?? 5));
  }
  return lines;
}

/** How a probe point is patched: a jmp to its detour buffer, an int3 over it, or nothing. */
function probeState(kprobes: Kprobes, site: ProbeSite): string {
  const detour = site.optimized ? kprobes.optimization.detour(site.addr) : undefined;
  if (detour !== undefined) {
    return `jump-optimized: jmp to its detour buffer at 0x${detour.buf.toString(16)}, the first ${detour.size} bytes copied there`;
  }
  return `${site.armed ? 'armed: int3 in place' : 'disarmed'}; copy at slot 0x${site.slot.toString(16)}`;
}
