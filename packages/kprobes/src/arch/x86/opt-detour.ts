import { PT_REGS_OFFSET, type PtRegName } from '@int3/kernel';
import { MAX_OPTIMIZED_LENGTH, RELATIVECALL_OPCODE, RELATIVEJUMP_OPCODE, RELATIVEJUMP_SIZE } from './x86-constants.js';

/** Intel register numbers of the general registers the template saves. */
const REG_NUMBER: Partial<Record<PtRegName, number>> = {
  ax: 0,
  cx: 1,
  dx: 2,
  bx: 3,
  bp: 5,
  si: 6,
  di: 7,
  r8: 8,
  r9: 9,
  r10: 10,
  r11: 11,
  r12: 12,
  r13: 13,
  r14: 14,
  r15: 15,
};

/** The saved registers in push order: `di` first (highest address) down to `r15` (the frame base). */
const PUSHED: readonly PtRegName[] = [
  'di',
  'si',
  'dx',
  'cx',
  'ax',
  'r8',
  'r9',
  'r10',
  'r11',
  'bx',
  'bp',
  'r12',
  'r13',
  'r14',
  'r15',
];

/** Bytes of one detour buffer (an `optinsn` slot): template, the longest region, the jump back. */
export const OPTINSN_SLOT_SIZE = 128;

/** A detour buffer's code and the parts of it that are instrumentation. */
export interface OptDetour {
  /** The whole buffer's code. */
  readonly bytes: Uint8Array;
  /** `TMPL_END_IDX`: offset of the copied DCR instructions (where `setup_detour_execution` jumps). */
  readonly tmplEnd: number;
  /** Offset of the `jmp rel32` back to `addr + regionLength`. */
  readonly jmpBack: number;
  /** Offset of the `call` to the optimized-callback gate (its return address is `callAt + 5`). */
  readonly callAt: number;
}

function push(out: number[], r: number): void {
  if (r >= 8) out.push(0x41);
  out.push(0x50 + (r & 7));
}

function pop(out: number[], r: number): void {
  if (r >= 8) out.push(0x41);
  out.push(0x58 + (r & 7));
}

function rel32(out: number[], from: bigint, to: bigint): boolean {
  const rel = to - from;
  if (rel < -(1n << 31n) || rel >= 1n << 31n) return false;
  const v = Number(BigInt.asUintN(32, rel));
  out.push(v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, (v >>> 24) & 0xff);
  return true;
}

function disp32(out: number[], v: number): void {
  out.push(v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, (v >>> 24) & 0xff);
}

/**
 * Builds an optimized probe's detour buffer at `buf`, hand-assembled after `optprobe_template_func`:
 *
 * 1. `push %rsp; pushfq; lea -24(%rsp),%rsp` then the general registers from `%rdi` down to `%r15`: a
 *    `struct pt_regs` frame at `%rsp` (`sp` holds the probed `%rsp`, `flags` the probed flags; `cs`,
 *    `ip`, `orig_ax` are left for the callback, `ss` is the caller's word above, as in Linux);
 * 2. `mov %rsp,%rsi; movabs $addr,%rdi; call <gate>`: the optimized callback runs the pre-handlers;
 * 3. `regs->flags` copied over `regs->sp`, the registers popped, `add $32,%rsp; popfq`;
 * 4. the relocated DCR instructions (`relocated`, already re-encoded for `buf + tmplEnd`);
 * 5. `jmp rel32` back to `addr + relocated.length`.
 *
 * Undefined when the gate or the way back is out of rel32 reach (`-ERANGE`).
 * @see arch/x86/kernel/kprobes/opt.c optprobe_template_func, arch_prepare_optimized_kprobe()
 */
export function buildOptDetour(buf: bigint, addr: bigint, gate: bigint, relocated: Uint8Array): OptDetour | undefined {
  if (relocated.length > MAX_OPTIMIZED_LENGTH) return undefined;
  // push %rsp; pushfq; lea -24(%rsp),%rsp (lea, unlike Linux's sub, leaves the flags as they were, so
  // the callback finds the probed flags in the CPU)
  const out: number[] = [0x54, 0x9c, 0x48, 0x8d, 0x64, 0x24, 0xe8];
  for (const name of PUSHED) push(out, REG_NUMBER[name]!);
  out.push(0x48, 0x89, 0xe6); // mov %rsp,%rsi
  out.push(0x48, 0xbf); // movabs $addr,%rdi
  for (let i = 0n; i < 64n; i += 8n) out.push(Number((addr >> i) & 0xffn));
  const callAt = out.length;
  out.push(RELATIVECALL_OPCODE);
  if (!rel32(out, buf + BigInt(callAt + RELATIVEJUMP_SIZE), gate)) return undefined;
  out.push(0x48, 0x8b, 0x94, 0x24); // mov flags(%rsp),%rdx
  disp32(out, PT_REGS_OFFSET.flags);
  out.push(0x48, 0x89, 0x94, 0x24); // mov %rdx,sp(%rsp)
  disp32(out, PT_REGS_OFFSET.sp);
  for (let i = PUSHED.length - 1; i >= 0; i--) pop(out, REG_NUMBER[PUSHED[i]]!);
  out.push(0x48, 0x83, 0xc4, 0x20); // add $32,%rsp: orig_ax, ip, cs, flags
  out.push(0x9d); // popfq: the flags, from the sp slot
  const tmplEnd = out.length;
  out.push(...relocated);
  const jmpBack = out.length;
  out.push(RELATIVEJUMP_OPCODE);
  const back = addr + BigInt(relocated.length);
  if (!rel32(out, buf + BigInt(jmpBack + RELATIVEJUMP_SIZE), back)) return undefined;
  return Object.freeze({ bytes: Uint8Array.from(out), tmplEnd, jmpBack, callAt });
}
