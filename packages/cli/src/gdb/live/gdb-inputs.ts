import type { Machine, RunOutcome } from '@int3/kernel';
import {
  arrayOf,
  type EntrySchema,
  type FieldRule,
  type InputHandler,
  integer,
  type LogEntry,
  text,
} from '@int3/kernel';
import { type AccessHit, type AccessWatch, AccessWatches } from '../replay/access-watch.js';
import { setCpuRegister } from '../replay/machine-registers.js';
import { StepProbe } from '../replay/step-probe.js';
import { WatchedBytes, type WriteWatch } from '../replay/watched-bytes.js';

/**
 * The inputs a live run under gdb journals, so its log replays: each resume as `input:gdb-run` (with
 * gdb's stop conditions, checked deterministically, and a bound in instructions so Ctrl-C is taken at
 * a bound), each register or memory write as `input:gdb-write`.
 */
export const GDB_RUN = 'input:gdb-run';
export const GDB_WRITE = 'input:gdb-write';

/** Most instructions (all CPUs) one `input:gdb-run` runs: Ctrl-C waits at most that long. */
export const GDB_RUN_INSTRUCTIONS = 100_000;
/**
 * Virtual time one full-speed `input:gdb-run` (a continue with breakpoints only) runs: 5 ms, about
 * 5·10⁶ instructions per CPU, a fraction of a second of host time between two looks for Ctrl-C.
 */
export const GDB_RUN_SLICE_NS = 5_000_000;

const MAX_LOG_INTEGER = Number.MAX_SAFE_INTEGER;
/** A bigint (written `{"$big":"<hex>"}` in the log). */
const big: FieldRule = (v) => (typeof v === 'bigint' ? undefined : 'a 64-bit value ({"$big":"<hex>"})');
const hexAddress = text(16, /^[0-9a-f]{1,16}$/, 'a hex address');
const watchRule = text(24, /^[0-9a-f]{1,16}:[1-8]$/, 'a watched range (hex address:length)');
const accessRule = text(26, /^[ra]:[0-9a-f]{1,16}:[1-8]$/, 'a read or access watch (r or a:hex address:length)');

/** The schemas of the gdb inputs (event-log.md §2). */
export const GDB_INPUT_SCHEMAS: ReadonlyMap<string, EntrySchema> = new Map<string, EntrySchema>([
  [
    GDB_RUN,
    {
      required: {
        pids: arrayOf(integer(1, MAX_LOG_INTEGER), 0, 4096, 'pids'),
        from: integer(0, MAX_LOG_INTEGER),
        instructions: integer(1, MAX_LOG_INTEGER),
        breakpoints: arrayOf(hexAddress, 0, 4096, 'hex addresses'),
        watches: arrayOf(watchRule, 0, 64, 'watched ranges'),
        step: integer(-1, 63),
      },
      optional: {
        deadlineNs: integer(0, MAX_LOG_INTEGER),
        first: (v) => (v === true ? undefined : 'true'),
        untilNs: integer(0, MAX_LOG_INTEGER),
        accesses: arrayOf(accessRule, 1, 64, 'read or access watches'),
      },
    },
  ],
  [
    GDB_WRITE,
    {
      required: { cpu: integer(0, 63) },
      optional: { register: integer(0, 41), value: big, address: big, bytes: text(8192, /^([0-9a-f]{2})*$/) },
    },
  ],
]);

/** A `gdb-run` input: where it starts, how far it may go, what stops it. */
export interface GdbRunInput extends LogEntry {
  readonly type: typeof GDB_RUN;
  readonly pids: readonly number[];
  /** Instructions all CPUs had retired when it started. */
  readonly from: number;
  readonly instructions: number;
  readonly breakpoints: readonly string[];
  readonly watches: readonly string[];
  /** Read (`r:ADDR:LEN`, gdb's rwatch) and access (`a:ADDR:LEN`, awatch) watchpoints; absent: none. */
  readonly accesses?: readonly string[];
  /** The CPU a `stepi` waits for (-1: none). */
  readonly step: number;
  /**
   * A `continue` at full speed: breakpoints are its only stops, and it runs to this virtual time of
   * CPU 0 (then to the next position), not to `from + instructions`.
   */
  readonly untilNs?: number;
  /** Stop at the first position (before the workload's first instruction): the start of the session. */
  readonly first?: boolean;
  readonly deadlineNs?: number;
}

/** Why the last `input:gdb-run` stopped where it did. */
export type GdbRunStop =
  | { readonly kind: 'first' | 'break' | 'step' | 'bound' }
  | { readonly kind: 'watch'; readonly watch: WriteWatch }
  | { readonly kind: 'access'; readonly hit: AccessHit };

/** What a machine's gdb inputs share: one probe (the step hook), the run going on, its last outcome. */
interface GdbRunState {
  /** Why the last gdb-run held. */
  stop: GdbRunStop | undefined;
  readonly probe: StepProbe;
  current:
    | {
        readonly input: LogEntry;
        readonly watched: WatchedBytes | undefined;
        readonly accesses: AccessWatches | undefined;
        /** An `untilNs` input past its time: it stops at the next position. */
        late: boolean;
      }
    | undefined;
  /** How the last gdb-run ended when the workloads did (else undefined). */
  outcome: RunOutcome | undefined;
}

const states = new WeakMap<Machine, GdbRunState>();

/** The gdb state of a machine, made on first use. */
export function gdbRunState(machine: Machine): GdbRunState {
  let s = states.get(machine);
  if (!s) {
    s = {
      probe: new StepProbe(machine.cpus, machine.kernel.guest),
      current: undefined,
      outcome: undefined,
      stop: undefined,
    };
    states.set(machine, s);
  }
  return s;
}

/** Instructions retired by all CPUs. */
export function retiredNow(machine: Machine): number {
  let n = 0;
  for (const c of machine.cpus) n += c.retired;
  return n;
}

/**
 * Carries out `input:gdb-run`: runs until the workloads `pids` exit (or the deadline), or the first
 * position past its start (at least one instruction retired since `from`) where gdb would stop — a
 * breakpoint's address, the step's CPU, a change of watched bytes — or `from + instructions`. Inside
 * a seek, the seek's own stops (the probe's outer visitor) interrupt it: it returns `'stopped'`.
 */
export function gdbRunHandler(machine: () => Machine): InputHandler {
  return (input, session) => {
    const m = machine();
    const i = input as GdbRunInput;
    const state = gdbRunState(m);
    const probe = state.probe;
    // Going on with the input a seek stopped (the same entry), or starting it.
    if (state.current?.input !== input) {
      const watches: WriteWatch[] = i.watches.map((w) => {
        const [a, n] = w.split(':');
        return { address: BigInt(`0x${a}`), length: Number(n) };
      });
      const accesses = (i.accesses ?? []).map((w): AccessWatch => {
        const [kind, a, n] = w.split(':');
        return { type: kind === 'r' ? 'rwatch' : 'awatch', address: BigInt(`0x${a}`), length: Number(n) };
      });
      state.current = {
        input,
        watched: watches.length > 0 ? new WatchedBytes(m.space, watches) : undefined,
        accesses: accesses.length > 0 ? new AccessWatches(accesses) : undefined,
        late: false,
      };
    }
    const current = state.current;
    const { watched, accesses } = current;
    const bps = new Set(i.breakpoints.map((b) => BigInt(`0x${b}`)));
    const end = i.untilNs === undefined ? i.from + i.instructions : Number.POSITIVE_INFINITY;
    const outer = probe.visitor;
    let heldBy: 'input' | 'outer' | undefined;
    probe.visitor = (cpu, rip, retired, repeat) => {
      const watch = watched?.changed();
      // The instruction before this position read (or, for awatch, wrote) a watched byte.
      const access = accesses?.take();
      const past = retired > i.from;
      const why: GdbRunStop | undefined =
        i.first === true
          ? { kind: 'first' }
          : !past
            ? undefined
            : access !== undefined
              ? { kind: 'access', hit: access }
              : watch !== undefined
                ? { kind: 'watch', watch }
                : bps.has(rip)
                  ? { kind: 'break' }
                  : cpu === i.step
                    ? { kind: 'step' }
                    : retired >= end || current.late
                      ? { kind: 'bound' }
                      : undefined;
      const theirs = outer?.(cpu, rip, retired, repeat) === true;
      // Where both stop, the input ends (as it did when it was journaled), and the seek stops after it.
      if (why !== undefined) {
        heldBy = 'input';
        state.stop = why;
        if (theirs) probe.stopAtInputEnd();
        return true;
      }
      if (theirs) {
        heldBy = 'outer';
        return true;
      }
      return false;
    };
    const hook = m.kernel.stepHook;
    // At full speed when nothing needs every instruction: breakpoints only, and no seek looking on
    // (a seek's re-run steps, stopping at the same positions: the step probe is asked at each stop
    // as at every instruction).
    const seekStops = probe.stopsOnly;
    const fast =
      !current.late &&
      i.untilNs !== undefined &&
      (outer === undefined || seekStops !== undefined) &&
      watched === undefined &&
      accesses === undefined;
    const stops = new Set([...bps, ...(seekStops ?? [])]);
    if (fast) {
      probe.onlyAt(stops);
      m.kernel.stepHook = undefined;
      m.kernel.setDebugStops([...stops], probe.hook);
    } else m.kernel.stepHook = probe.hook;
    // A full-speed seek's stops are back after this input (it may step, or have stops of its own).
    const restoreStops = () =>
      m.kernel.setDebugStops(seekStops ? [...seekStops] : [], seekStops ? probe.hook : undefined);
    const byPid = new Set(i.pids);
    const tasks = session.spawned.filter((t) => byPid.has(t.pid));
    const until = () => tasks.every((t) => t.exited);
    const uninstall = accesses?.install(m.cpus);
    try {
      let outcome: RunOutcome;
      if (current.late) outcome = m.run({ until, deadlineNs: i.deadlineNs, stopAfter: probe.stop });
      else {
        const untilNs = Math.min(i.deadlineNs ?? Number.POSITIVE_INFINITY, i.untilNs ?? Number.POSITIVE_INFINITY);
        outcome = m.run({ until, deadlineNs: Number.isFinite(untilNs) ? untilNs : undefined, stopAfter: probe.stop });
        if (
          outcome.reason === 'time' &&
          i.untilNs !== undefined &&
          outcome.at < (i.deadlineNs ?? Number.POSITIVE_INFINITY)
        ) {
          // Past its time: on to the next position, one instruction at a time (where a stepped
          // re-run of it stops too).
          current.late = true;
          if (fast) {
            restoreStops();
            m.kernel.stepHook = probe.hook;
          }
          outcome = m.run({ until, deadlineNs: i.deadlineNs, stopAfter: probe.stop });
        }
      }
      if (outcome.reason === 'stopped') {
        if (heldBy === 'outer') return 'stopped';
      } else state.outcome = outcome;
      state.current = undefined;
      return undefined;
    } finally {
      if (fast) restoreStops();
      uninstall?.();
      probe.visitor = outer;
      m.kernel.stepHook = hook;
    }
  };
}

/** Carries out `input:gdb-write`: one register of a CPU, or bytes of memory as that CPU sees it. */
export function gdbWriteHandler(machine: () => Machine): InputHandler {
  return (input) => {
    const cpu = machine().cpus[input.cpu as number];
    if (typeof input.register === 'number' && typeof input.value === 'bigint') {
      setCpuRegister(cpu, input.register, input.value);
    } else if (typeof input.address === 'bigint' && typeof input.bytes === 'string') {
      cpu.addressSpace.write(input.address, new Uint8Array(Buffer.from(input.bytes, 'hex')));
    }
  };
}
