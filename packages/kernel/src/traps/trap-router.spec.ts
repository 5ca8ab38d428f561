import { afterEach, describe, expect, it } from 'vitest';
import type { KernelEvent } from '../events/kernel-event.js';
import { GuestCallError } from '../machine/guest-caller.js';
import { Machine } from '../machine/machine.js';
import { readSampleImage, sampleProgram } from '../sample-image.js';
import { stateHash } from '../session/state-hash.js';
import { DieVal, NotifyResult } from './die-chain.js';
import { TrapRouter } from './trap-router.js';

const image = readSampleImage();
const savedJit = process.env.INT3_JIT;

interface Options {
  /** Whether the CPUs keep the trap hook the kernel installs (false: every trap returns from run()). */
  readonly inPlace: boolean;
  readonly jit: '0' | '1';
  readonly fn: string;
  readonly cpus?: number;
  /** A breakpoint nobody claims: the notifier looks and lets it go. */
  readonly unclaimed?: boolean;
}

/**
 * A machine with a breakpoint at `fn` taken the way kprobes' int3 path does, with two traps per hit:
 * on the #BP the original byte goes back and the instruction is single-stepped (TF); on the #DB the
 * int3 goes back and TF is cleared. Counts what happens: notifier calls, CPU runs (run() and step()
 * calls), every kernel event.
 */
function probed(o: Options) {
  process.env.INT3_JIT = o.jit;
  const m = Machine.boot({ image, cpus: o.cpus ?? 1, programs: sampleProgram });
  const address = m.kallsyms.lookupName(o.fn)!.address;
  const original = m.space.read(address, 1);
  const int3 = new Uint8Array([0xcc]);
  m.kernel.memory.textPoke(address, int3);
  const stepping: boolean[] = m.cpus.map(() => false);
  const seen = { int3: 0, debug: 0, runs: 0 };
  m.kernel.dieChain.register('test-probe', 0, (a) => {
    if (a.val === DieVal.INT3 && a.regs.ip === address + 1n) {
      seen.int3++;
      if (o.unclaimed) return NotifyResult.DONE;
      m.kernel.memory.textPoke(address, original);
      a.regs.ip = address;
      a.regs.flags |= 0x100;
      stepping[a.cpu] = true;
      return NotifyResult.STOP;
    }
    if (a.val === DieVal.DEBUG && stepping[a.cpu]) {
      seen.debug++;
      stepping[a.cpu] = false;
      m.kernel.memory.textPoke(address, int3);
      a.regs.flags &= ~0x100;
      return NotifyResult.STOP;
    }
    return NotifyResult.DONE;
  });
  for (const c of m.cpus) {
    if (!o.inPlace) c.trapHook = null;
    const run = c.run.bind(c);
    const step = c.step.bind(c);
    c.run = (budget, hardCap) => {
      seen.runs++;
      return hardCap === undefined ? run(budget) : run(budget, hardCap);
    };
    c.step = () => {
      seen.runs++;
      return step();
    };
  }
  const events: KernelEvent[] = [];
  m.events$.subscribe((e) => events.push(e));
  return { m, seen, events };
}

/** `kprobe_target_loop(n)` called from the host: n hits of the breakpoint at `kprobe_target`. */
function guestCall(inPlace: boolean, jit: '0' | '1') {
  const { m, seen, events } = probed({ inPlace, jit, fn: 'kprobe_target' });
  const loop = m.kallsyms.lookupName('kprobe_target_loop')!.address;
  const result = m.kernel.guest.call(0, loop, [50n]);
  return { result, seen, events, hash: stateHash(m), retired: m.cpus[0].retired };
}

/** cat and a spinner on 2 CPUs, with the breakpoint at vfs_read, run to the end (with `stopAfter`, if given). */
function workload(inPlace: boolean, jit: '0' | '1', stopAfter?: () => boolean) {
  const { m, seen, events } = probed({ inPlace, jit, fn: 'vfs_read', cpus: 2 });
  const tasks = [m.spawn(['cat', '/etc/motd']), m.spawn(['spin', '20000']), m.spawn(['dd', '2'])];
  const until = () => tasks.every((t) => t.exited);
  let outcome = m.run({ until, stopAfter });
  while (outcome.reason === 'stopped') outcome = m.run({ until, stopAfter });
  return {
    outcome,
    seen,
    events,
    hash: stateHash(m),
    console: m.console.map((c) => c.text).join(''),
    exits: tasks.map((t) => t.exitCode),
  };
}

describe(TrapRouter, () => {
  afterEach(() => {
    if (savedJit === undefined) delete process.env.INT3_JIT;
    else process.env.INT3_JIT = savedJit;
  });

  it('should handle a breakpoint and its single-step inside the CPU run of a host-to-guest call', () => {
    for (const jit of ['0', '1'] as const) {
      const inPlace = guestCall(true, jit);
      const returned = guestCall(false, jit);
      expect(inPlace.seen.int3).toBe(50);
      expect(inPlace.seen.debug).toBe(50);
      // Every trap returned from run() without the hook: 100 traps, 101 runs.
      expect(returned.seen.runs).toBe(101);
      expect(inPlace.seen.runs).toBe(1);
      const { runs: _a, ...a } = inPlace.seen;
      const { runs: _b, ...b } = returned.seen;
      expect(a).toEqual(b);
      expect(inPlace.result).toBe(returned.result);
      expect(inPlace.retired).toBe(returned.retired);
      expect(inPlace.hash).toBe(returned.hash);
      expect(inPlace.events).toEqual(returned.events);
    }
  });

  it('should leave a run of tasks as it was with traps returning, on either engine (events, state, output)', () => {
    const runs = (['0', '1'] as const).flatMap((jit) => [workload(true, jit), workload(false, jit)]);
    const [first, ...rest] = runs;
    expect(first.outcome).toEqual({ reason: 'done' });
    expect(first.exits).toEqual([0, 0, 0]);
    expect(first.seen.int3).toBeGreaterThan(2);
    expect(first.seen.debug).toBe(first.seen.int3);
    // The events include every trap:raised and die:notified, with their virtual times.
    expect(first.events.filter((e) => e.type === 'trap:raised')).toHaveLength(2 * first.seen.int3);
    for (const r of rest) {
      expect({ ...r.seen, runs: 0 }).toEqual({ ...first.seen, runs: 0 });
      expect(r.hash).toBe(first.hash);
      expect(r.console).toBe(first.console);
      expect(r.events).toEqual(first.events);
    }
    // In place, the traps cost no CPU runs of their own (no sleeper was due at any of them).
    for (const i of [0, 2]) expect(runs[i].seen.runs).toBe(runs[i + 1].seen.runs - 2 * first.seen.int3);
  });

  it('should let every trap return under stopAfter, which is asked after each as before', () => {
    const asked = (inPlace: boolean) => {
      let n = 0;
      const r = workload(inPlace, '1', () => {
        n++;
        return false;
      });
      return { n, runs: r.seen.runs, hash: r.hash };
    };
    const inPlace = asked(true);
    const returned = asked(false);
    expect(inPlace).toEqual(returned);
  });

  it('should offer a breakpoint nobody claims to the die chain once, then oops as before', () => {
    const calls = (inPlace: boolean) => {
      const { m, seen, events } = probed({ inPlace, jit: '1', fn: 'kprobe_target', unclaimed: true });
      const loop = m.kallsyms.lookupName('kprobe_target_loop')!.address;
      expect(() => m.kernel.guest.call(0, loop, [3n])).toThrow(GuestCallError);
      return { seen, events: events.map((e) => e.type), dmesg: m.printk.dmesg() };
    };
    const inPlace = calls(true);
    expect(inPlace.seen.int3).toBe(1);
    expect(inPlace.events.filter((t) => t === 'die:notified')).toHaveLength(1);
    expect(inPlace.dmesg).toMatch(/int3/);
    expect(inPlace).toEqual(calls(false));
  });
});
