import { describe, expect, it } from 'vitest';
import { readSampleImage, sampleProgram } from '../sample-image.js';
import { stateHash } from '../session/state-hash.js';
import { Machine } from './machine.js';

const image = readSampleImage();

/** Every visit of `address` (retired counts of all CPUs, CPU) in a run of cat on 2 CPUs, held at the `holdAt`-th. */
function visits(mode: 'step' | 'stops', holdAt: number) {
  const m = Machine.boot({ image, cpus: 2, programs: sampleProgram });
  const address = m.kallsyms.lookupName('vfs_read')!.address;
  const seen: string[] = [];
  let held = false;
  let skip = false;
  const hook = (cpu: number, rip: bigint) => {
    if (skip) {
      skip = false;
      return false;
    }
    if (rip !== address) return false;
    let retired = 0;
    for (const c of m.cpus) retired += c.retired;
    seen.push(`${retired}/${cpu}`);
    if (seen.length !== holdAt) return false;
    held = true;
    return true;
  };
  if (mode === 'step') m.kernel.stepHook = hook;
  else m.kernel.setDebugStops([address], hook);
  const tasks = [m.spawn(['cat', '/etc/motd']), m.spawn(['spin', '20000'])];
  const done = () => tasks.every((t) => t.exited);
  const stopAfter = () => {
    if (!held) return false;
    held = false;
    skip = true;
    return true;
  };
  const first = m.run({ until: done, stopAfter });
  const at = { reason: first.reason, rip: m.cpus.map((c) => c.rip), hash: stateHash(m) };
  m.run({ until: done, stopAfter });
  m.kernel.setDebugStops([], undefined);
  m.kernel.stepHook = undefined;
  return { seen, at, end: stateHash(m), console: m.console.map((c) => c.text).join('') };
}

describe('Machine.kernel.setDebugStops', () => {
  it('should stop where the step hook stops, at the same retired counts, and run on to the same end', () => {
    const stepped = visits('step', 1);
    const fast = visits('stops', 1);
    expect(stepped.seen.length).toBe(2);
    expect(fast).toEqual(stepped);
    expect(fast.at.reason).toBe('stopped');
  });
});
