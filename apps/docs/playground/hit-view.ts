import { countInterruptions, formatDisassembly, hitSteps, type MechanismEvent, type TracedSession } from '@int3/cli';
import type { DisassemblyRow, HitView } from './protocol.js';

/** Events the playground keeps from boot for the step-by-step view: the first hits are among them. */
export const TIMELINE_CAP = 20_000;

/** Largest function disassembled, in bytes (as `int3 disasm`). */
const MAX_FUNCTION_BYTES = 4096;
/** Bytes decoded at an instruction slot: the copy (at most 15) and a boosted copy's jmp back. */
const SLOT_BYTES = 24;

/** A disassembly line of {@link formatDisassembly}: `  addr:  bytes  text[  <- kprobe (…)]`. */
const ROW = /^(?:=>| {2})([0-9a-f]+): {2}(.*)$/;

const isTrampoline = (symbol: string) => symbol.startsWith('kretprobe_trampoline');

/**
 * The step-by-step view of the first probe hit in `timeline` (the trampoline's own hits belong to a
 * kretprobe's): the lines `int3 demo` prints for a hit ({@link hitSteps}), each linked to the
 * addresses it names that the disassembly shows; the probed function's disassembly as `int3 disasm`
 * prints it, the probe's row marked; the instruction slot holding the probe's copy, its row marked.
 */
export function hitView(t: TracedSession, timeline: readonly MechanismEvent[]): HitView | undefined {
  const m = t.session.machine;
  const sym = (a: bigint) => m.kallsyms.format(a);
  const steps = hitSteps(timeline, 0, sym, (e) => e.type === 'kprobe:hit' && !isTrampoline(e.symbol));
  const hit = steps?.find((s) => s.event.type === 'kprobe:hit')?.event;
  if (steps === undefined || hit === undefined || hit.type !== 'kprobe:hit') return undefined;
  const loc = m.kallsyms.lookup(hit.addr);
  const site = [...t.kprobes.sites()].find((s) => s.addr === hit.addr);
  const start = loc?.sym.address ?? hit.addr;
  const size = Math.min(loc?.sym.size || 64, MAX_FUNCTION_BYTES);
  const fn = rows(formatDisassembly(m.space, t.kprobes, { start, size }), hit.addr);
  const slotAddr = site?.slot;
  const slot =
    slotAddr === undefined
      ? []
      : slotCode(rows(formatDisassembly(m.space, t.kprobes, { start: slotAddr, size: SLOT_BYTES }), slotAddr));
  const shown = new Set([...fn, ...slot].map((r) => r.address));
  return {
    heading: `the first hit of ${hit.symbol}, on CPU ${hit.cpu}: ${countInterruptions(steps)}`,
    steps: steps.map((s) => ({ line: s.line, links: addressesOf(s.event).filter((a) => shown.has(a)) })),
    function: { name: loc?.sym.name ?? sym(hit.addr), rows: fn },
    ...(slotAddr === undefined ? {} : { slot: { address: hex(slotAddr), rows: slot } }),
  };
}

function rows(lines: readonly string[], marked: bigint): DisassemblyRow[] {
  const out: DisassemblyRow[] = [];
  for (const line of lines) {
    const m = ROW.exec(line);
    if (m !== null) out.push({ address: m[1], text: m[2], marked: BigInt(`0x${m[1]}`) === marked });
  }
  return out;
}

/**
 * The slot's instructions: up to the first `00 00  add %al,(%rax)` row (a slot page's unused bytes
 * decode so) or undecodable one, after the copy and a boosted copy's jmp back.
 */
function slotCode(r: DisassemblyRow[]): DisassemblyRow[] {
  const end = r.findIndex(
    (row, i) => i > 0 && (/^00 00 +add %al,\(%rax\)$/.test(row.text) || /\(bad\)$/.test(row.text)),
  );
  return end < 0 ? r : r.slice(0, end);
}

const hex = (a: bigint) => a.toString(16);

/** The code addresses an event names: a trap's rip (a #BP's int3 is the byte before), a step's slot, ip… */
function addressesOf(e: MechanismEvent): string[] {
  switch (e.type) {
    case 'trap:raised':
      return e.vector === 3 ? [hex(e.rip - 1n), hex(e.rip)] : [hex(e.rip)];
    case 'kprobe:single-step-begun':
      return [hex(e.slot)];
    case 'kprobe:boosted':
      return [hex(e.slot), hex(e.jmpBack)];
    case 'kprobe:resumed':
      return [hex(e.ip)];
    case 'kretprobe:return-address-swapped':
      return [hex(e.original)];
    case 'kretprobe:trampoline-hit':
      return [hex(e.returnTo)];
    default:
      return 'addr' in e ? [hex(e.addr)] : [];
  }
}
