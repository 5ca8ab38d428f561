import { disassemble, Reg } from '@int3/cpu';
import { KernelLayout, type LogEntry } from '@int3/kernel';
import type { TracedSession } from '../tracing/traced-session.js';
import { decodeRflags } from './decode-rflags.js';
import { formatDisassembly } from './format-disassembly.js';

const GPRS: readonly (readonly [string, number])[] = [
  ['rax', Reg.RAX],
  ['rbx', Reg.RBX],
  ['rcx', Reg.RCX],
  ['rdx', Reg.RDX],
  ['rsi', Reg.RSI],
  ['rdi', Reg.RDI],
  ['rbp', Reg.RBP],
  ['rsp', Reg.RSP],
  ['r8', Reg.R8],
  ['r9', Reg.R9],
  ['r10', Reg.R10],
  ['r11', Reg.R11],
  ['r12', Reg.R12],
  ['r13', Reg.R13],
  ['r14', Reg.R14],
  ['r15', Reg.R15],
];

/** Bytes of an instruction slot (MAX_INSN_SIZE, plus room for a jump back). */
const SLOT_BYTES = 16n;

/** Bytes of a function shown at most when rip is inside one. */
const MAX_FUNCTION_BYTES = 4096;

/**
 * What `int3 replay --at N` prints, the machine stopped right after log event `n` (`entry`): the
 * event, then for the CPU it happened on (CPU 0 for an input) its current task, every GPR, rip with
 * its symbol, rflags decoded, cs/ss and the CPL, and the disassembly around rip (rip marked `=>`).
 *
 * @see Documentation/admin-guide/bug-hunting.rst (the register dump of an oops, which this follows)
 */
export function describeMachineAt(t: TracedSession, n: number, total: number, entry: LogEntry): string {
  const m = t.session.machine;
  const cpuId = typeof entry.cpu === 'number' && entry.cpu >= 0 && entry.cpu < m.cpus.length ? entry.cpu : 0;
  const cpu = m.cpus[cpuId];
  const ctx = cpu.saveContext();
  const task = m.sched.current[cpuId];
  const hex = (v: bigint) => v.toString(16).padStart(16, '0');
  const lines = [`event ${n} of ${total - 1}: ${summarizeEntry(entry)}`];
  lines.push(
    `CPU ${cpuId}: ${task ? `task ${task.comm} (pid ${task.pid})` : 'idle (no task)'}, CPL ${ctx.cs & 3} (${(ctx.cs & 3) === 0 ? 'kernel' : 'user'} mode), virtual time ${(m.clock(cpuId) / 1e9).toFixed(6)} s`,
  );
  for (let i = 0; i < GPRS.length; i += 4) {
    lines.push(
      GPRS.slice(i, i + 4)
        .map(([name, r]) => `${name.padStart(3)} ${hex(ctx.gpr[r])}`)
        .join('  '),
    );
  }
  lines.push(`rip ${hex(ctx.rip)} <${m.kallsyms.format(ctx.rip)}>`);
  lines.push(`rflags ${decodeRflags(ctx.rflags)}`);
  lines.push(`cs 0x${ctx.cs.toString(16)}  ss 0x${ctx.ss.toString(16)}`);
  lines.push('', 'code:');
  lines.push(...codeAround(t, ctx.rip, task?.mm ?? m.space));
  return `${lines.join('\n')}\n`;
}

/** The instructions around rip: from the start of its function when it is in one, else from rip. */
function codeAround(t: TracedSession, rip: bigint, space: TracedSession['session']['machine']['space']): string[] {
  const m = t.session.machine;
  const loc = rip >= KernelLayout.KERNEL_HALF ? m.kallsyms.lookup(rip) : undefined;
  const inFunction = loc !== undefined && loc.sym.size > 0 && loc.sym.size <= MAX_FUNCTION_BYTES;
  // In an instruction slot: the copy being single-stepped, and where it came from.
  const site = [...t.kprobes.sites()].find((s) => rip >= s.slot && rip < s.slot + SLOT_BYTES);
  if (site !== undefined) {
    const [copy] = disassemble(space.read(site.slot, Number(SLOT_BYTES)), site.slot, 1);
    const lead = copy.address === rip ? '=>' : '  ';
    return [
      `${lead}${copy.address.toString(16)}:  ${copy.bytes.padEnd(24)} ${copy.text}  <- copy of the instruction at ${m.kallsyms.format(site.addr)}, single-stepped out of line`,
    ];
  }
  const detour = detourAround(t, rip, space);
  if (detour !== undefined) return detour;
  try {
    const lines = inFunction
      ? formatDisassembly(space, t.kprobes, { start: loc.sym.address, size: loc.sym.size, rip, before: 6, after: 6 })
      : [];
    if (lines.length > 0) return dropZeroPadding(lines);
    // Not in a function, or its start does not decode to rip: from rip on.
    return dropZeroPadding(formatDisassembly(space, t.kprobes, { start: rip, size: 64, rip, before: 0, after: 8 }));
  } catch {
    return [`  (no code mapped at ${rip.toString(16)})`];
  }
}

/** Without the `00 00  add %al,(%rax)` lines after the code (zeroed memory decodes so). */
function dropZeroPadding(lines: string[]): string[] {
  let end = lines.length;
  while (end > 1 && /^ {2}[0-9a-f]+: {2}00 00 +add %al,\(%rax\)$/.test(lines[end - 1])) end--;
  return lines.slice(0, end);
}

/** One line for a log entry: its type, then `key=value` for its fields (long strings cut). */
export function summarizeEntry(entry: LogEntry): string {
  const parts = [entry.type];
  for (const [key, value] of Object.entries(entry)) {
    if (key === 'type') continue;
    let text = typeof value === 'bigint' ? `0x${value.toString(16)}` : JSON.stringify(value, bigintReplacer);
    if (text.length > 60) text = `${text.slice(0, 57)}...`;
    parts.push(`${key}=${text}`);
  }
  return parts.join(' ');
}

function bigintReplacer(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? `0x${value.toString(16)}` : value;
}

/**
 * rip in a jump-optimized probe's detour buffer: the buffer, its gate (the optimized callback), the
 * copied region and the jump back, each named.
 */
function detourAround(
  t: TracedSession,
  rip: bigint,
  space: TracedSession['session']['machine']['space'],
): string[] | undefined {
  const m = t.session.machine;
  for (const site of t.kprobes.sites()) {
    const d = t.kprobes.optimization.detour(site.addr);
    if (d === undefined) continue;
    const back = d.copies + BigInt(d.size);
    const end = back + 5n;
    if (rip < d.buf || rip >= end) continue;
    const where = m.kallsyms.format(site.addr);
    const lead = (a: bigint) => (a === rip ? '=>' : '  ');
    const gate = Buffer.from(space.read(d.buf, Number(d.copies - d.buf))).toString('hex');
    const lines = [
      `${lead(d.buf)}${d.buf.toString(16)}:  ${gate.padEnd(24)} (gate)  <- the optimized callback of the probe at ${where}`,
    ];
    for (const insn of disassemble(space.read(d.copies, Number(end - d.copies)), d.copies)) {
      const mark =
        insn.address === d.copies
          ? `  <- copy of the ${d.size} bytes at ${where}, run out of line`
          : insn.address === back
            ? '  <- back after the region'
            : '';
      lines.push(`${lead(insn.address)}${insn.address.toString(16)}:  ${insn.bytes.padEnd(24)} ${insn.text}${mark}`);
    }
    return lines;
  }
  return undefined;
}
