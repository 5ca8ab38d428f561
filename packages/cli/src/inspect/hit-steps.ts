import type { TrapEvent } from '@int3/cpu';
import type { KprobeEvent } from '@int3/kprobes';

/** What the kprobes mechanism shows of a hit: the CPU's traps and kprobes' own steps, in order. */
export type MechanismEvent = KprobeEvent | TrapEvent;

/** One line of a hit told step by step: an interruption (a trap) or a kprobes event, as `int3 demo` prints it. */
export interface HitStep {
  /** `  interruption 1: #BP at sys_mkdir+0x1/0x30` or `      kprobe:hit: sys_mkdir+0x0 (…)`. */
  readonly line: string;
  readonly event: MechanismEvent;
}

const HIT_PATH: Record<Extract<KprobeEvent, { type: 'kprobe:hit' }>['path'], string> = {
  int3: 'int3, the copy single-stepped',
  boosted: 'int3, the boosted copy runs without #DB',
  optimized: 'its jmp to the optimized callback, no trap',
  detour: 'int3 of a probe being optimized, sent to the detour',
};

/**
 * The steps of one probe hit in `timeline` (kprobes' `events$` and the machine's `traps$`, merged in
 * order): the first event at or after `from` that `isAnchor` picks, on its CPU, taken back to the
 * hit's `kprobe:hit` and the #BP before it, then forward. A kretprobe's hit goes on to the return
 * through the trampoline and its own single-step (if not boosted); any other hit ends at its
 * `kprobe:resumed`, or, taken without a single-step (boosted, jump-optimized), before the next trap,
 * hit or event outside a hit. Traps are numbered as interruptions; the pre-handler's run is not shown.
 * Undefined when no anchor is found.
 *
 * @see Documentation/kprobes.txt (How Does a Kprobe Work?, How Does a Return Probe Work?)
 * @example
 * hitSteps(timeline, 0, sym, (e) => e.type === 'kretprobe:return-address-swapped')?.map((s) => s.line);
 */
export function hitSteps(
  timeline: readonly MechanismEvent[],
  from: number,
  sym: (address: bigint) => string,
  isAnchor: (e: MechanismEvent) => boolean,
): HitStep[] | undefined {
  const anchor = timeline.findIndex((e, i) => i >= from && isAnchor(e));
  if (anchor < 0) return undefined;
  const cpu = timeline[anchor].cpu;
  let first = anchor;
  while (first > from && !(timeline[first].type === 'kprobe:hit' && timeline[first].cpu === cpu)) first--;
  if (first > from && isTrap(timeline[first - 1]) && timeline[first - 1].cpu === cpu) first--;
  const steps: HitStep[] = [];
  let n = 0;
  let returned = false;
  let swapped = false;
  let stepping = false;
  let hits = 0;
  for (let i = first; i < timeline.length; i++) {
    const e = timeline[i];
    if (e.cpu !== cpu && e.cpu !== -1) continue;
    if (e.type === 'kretprobe:return-address-swapped') swapped = true;
    if (!swapped) {
      // A hit with no return to wait for: it is over at the next trap (but its own #DB), hit or event
      // outside a hit.
      if (e.type === 'kprobe:hit') hits++;
      const ownDebugTrap = isTrap(e) && e.vector === 1 && stepping;
      if ((isTrap(e) && i > first && !ownDebugTrap) || hits > 1 || e.cpu === -1) break;
      if (e.type === 'kprobe:single-step-begun') stepping = true;
    }
    if (returned && e.type !== 'kretprobe:trampoline-hit') {
      // After the return: only the 2.6.12 trampoline's own single-step, if it is not boosted.
      const step = e.type === 'kprobe:pre-handler-ran' || e.type === 'kprobe:single-step-begun';
      if (!step && !(isTrap(e) && e.vector === 1) && e.type !== 'kprobe:resumed') break;
    }
    if (isTrap(e)) steps.push({ line: `  interruption ${++n}: ${e.name} at ${sym(e.rip)}`, event: e });
    else if (e.type !== 'kprobe:pre-handler-ran') steps.push({ line: `      ${describeStep(e, sym)}`, event: e });
    if (e.type === 'kretprobe:trampoline-hit') returned = true;
    if (returned && e.type === 'kprobe:resumed') break;
    if (!swapped && e.type === 'kprobe:resumed') break;
  }
  return steps;
}

/** `N interruptions`: how many traps the steps count. */
export function countInterruptions(steps: readonly HitStep[]): string {
  const n = steps.filter((s) => isTrap(s.event)).length;
  return `${n} interruption${n === 1 ? '' : 's'}`;
}

function isTrap(e: MechanismEvent): e is TrapEvent {
  return e.type === 'trap:raised';
}

function describeStep(e: KprobeEvent, sym: (a: bigint) => string): string {
  switch (e.type) {
    case 'kretprobe:return-address-swapped':
      return `${e.type}: return address ${sym(e.original)} -> ${sym(e.trampoline)}`;
    case 'kretprobe:trampoline-hit':
      return `${e.type}: ${e.symbol} returned ${e.retval}, back to ${sym(e.returnTo)}`;
    case 'kprobe:single-step-begun':
      return `${e.type}: copy of '${e.insn}' at slot 0x${e.slot.toString(16)}`;
    case 'kprobe:resumed':
      return `${e.type}: ${e.fixup}, ip = ${sym(e.ip)}`;
    case 'kprobe:hit':
      return `${e.type}: ${e.symbol} (${HIT_PATH[e.path]})`;
    default:
      return `${e.type} (${e.symbol})`;
  }
}
