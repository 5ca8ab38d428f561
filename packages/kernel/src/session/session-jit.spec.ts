import { afterEach, describe, expect, it } from 'vitest';
import { readSampleImage, sampleProgram } from '../sample-image.js';
import { Session } from './session.js';

const image = readSampleImage();
const base = { image, imageName: 'vmlinux', programs: sampleProgram };
const enc = (s: string) => new TextEncoder().encode(s);
const saved = process.env.INT3_JIT;

/** A recording made with the CPUs' block compiler on (INT3_JIT=1) or off (INT3_JIT=0). */
function record(jit: '0' | '1'): { session: Session; compiled: number } {
  process.env.INT3_JIT = jit;
  const s = Session.create({ ...base, cpus: 2 });
  s.runWorkloads([
    ['fork', '3'],
    ['spin', '200000'],
    ['net', '2'],
    ['cat', '/etc/motd'],
  ]);
  s.runWorkloads([['fault'], ['dd', '2'], ['hello']]);
  s.close();
  s.end();
  const compiled = s.machine.cpus.reduce((n, cpu) => n + (cpu.jit?.stats.retired ?? 0), 0);
  return { session: s, compiled };
}

describe('a session with the block compiler', () => {
  afterEach(() => {
    if (saved === undefined) delete process.env.INT3_JIT;
    else process.env.INT3_JIT = saved;
  });

  it('should record a byte-identical log with INT3_JIT=1 and INT3_JIT=0', () => {
    const off = record('0');
    const on = record('1');
    expect(off.compiled).toBe(0);
    // Most of the run was compiled code, or the comparison would prove little.
    expect(on.compiled).toBeGreaterThan(on.session.machine.cpus[0].retired / 2);
    expect(on.session.text()).toBe(off.session.text());
  });

  it('should replay a log recorded with one engine on the other', () => {
    const off = record('0').session.text();
    const on = record('1').session.text();
    process.env.INT3_JIT = '1';
    expect(Session.replay(enc(off), 'off.int3log', base).text()).toBe(off);
    process.env.INT3_JIT = '0';
    expect(Session.replay(enc(on), 'on.int3log', base).text()).toBe(on);
  });
});
