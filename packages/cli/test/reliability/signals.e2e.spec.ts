// Reliability (issue 13 §4): SIGINT, SIGTERM and SIGHUP stop a run, keep what was traced, leave a log
// with an end record naming the signal that replays up to the stop, and exit 128 + the signal.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { int3, lines, startInt3 } from '../int3.js';
import { readEntries, writeEntries } from './crafted-log.js';

// Each case spawns the CLI, a few times: on a loaded machine that takes minutes, not seconds.
vi.setConfig({ testTimeout: 240_000 });

const dir = mkdtempSync(join(tmpdir(), 'int3-signals-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const OPEN = 'p:open do_sys_open dfd=%di filename=+0(%si):string';
const STATUS = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;

/** Starts `args`, sends `signal` once the run is under way (the first slices hold cat's open). */
async function stopped(args: string[], signal: NodeJS.Signals) {
  const p = startInt3(args);
  await new Promise<void>((resolve) => {
    const poll = setInterval(() => {
      if (p.stdout !== '' || Date.now() - t0 > 4000) {
        clearInterval(poll);
        resolve();
      }
    }, 50);
    const t0 = Date.now();
  });
  const sent = Date.now();
  p.child.kill(signal);
  const r = await p.done;
  return { ...r, ms: Date.now() - sent };
}

describe('record stopped by a signal', () => {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    it(`should write the log with an end record saying ${signal}, print the trace and exit ${STATUS[signal]}`, async () => {
      const log = join(dir, `${signal}.int3log`);
      const p = startInt3(['record', '-o', log, '-e', OPEN, '--run', 'cat /etc/motd', '--run', 'spin 2000000000']);
      setTimeout(() => p.child.kill(signal), 2500);
      const r = await p.done;
      expect(r.signal).toBeNull();
      expect(r.status).toBe(STATUS[signal]);
      expect(lines(r.stdout)).toEqual([expect.stringMatching(/ open: .* filename="\/etc\/motd"$/)]);
      expect(r.stderr).toMatch(/^int3: interrupted \((Ctrl-C|SIGTERM|SIGHUP)\) at \d+\.\d{6} s of virtual time/);
      const entries = readEntries(log);
      expect(entries.at(-1)).toMatchObject({ type: 'end', entries: entries.length - 1, stop: signal });
      const replayed = int3(['replay', log]);
      expect(replayed.status).toBe(0);
      expect(replayed.stdout).toBe(r.stdout);
      expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    });
  }
});

describe('trace, replay and tracefs stopped by a signal', () => {
  it('should print what trace traced on SIGTERM, exit 143', async () => {
    const r = await stopped(['trace', '-e', OPEN, '--run', 'cat /etc/motd', '--run', 'spin 2000000000'], 'SIGTERM');
    expect(r.status).toBe(143);
    expect(lines(r.stdout)).toEqual([expect.stringMatching(/ open: /)]);
  });
});

describe('replay of one long crafted input', () => {
  it('should stop on SIGINT within the input:run (it yields every 100 ms of host time), exit 130', async () => {
    const rec = join(dir, 'short.int3log');
    const recording = startInt3(['record', '-o', rec, '--run', 'spin 2000000000']);
    setTimeout(() => recording.child.kill('SIGINT'), 2500);
    expect((await recording.done).status).toBe(130);
    const e = readEntries(rec);
    const spawnAt = e.findIndex((x) => x.type === 'input:spawn');
    const checkpoint = e.find((x, i) => i > spawnAt && x.type === 'checkpoint')!;
    // The recorded spawn with its checkpoint, then one run until the spin exits: minutes of host
    // time in a single input (a recording slices it; this log does not).
    const crafted = [
      ...e.slice(0, e.indexOf(checkpoint) + 1),
      { type: 'input:run', pids: [1] },
      { ...checkpoint, input: 1 },
    ];
    const log = join(dir, 'long.int3log');
    writeEntries(log, [
      ...crafted,
      { type: 'end', entries: crafted.length, inputs: 2, hash: checkpoint.hash, stop: 'complete' },
    ]);
    const p = startInt3(['replay', log]);
    setTimeout(() => p.child.kill('SIGINT'), 3000);
    const r = await p.done;
    expect(r.signal).toBeNull();
    expect(r.stderr).toMatch(/^int3: interrupted \(Ctrl-C\) at \d+\.\d{6} s of virtual time/);
    expect(r.status).toBe(130);
  }, 60_000);
});

describe('tracefs sleep', () => {
  it('should pass a long idle sleep at once (idle time is skipped, not ticked)', () => {
    const start = Date.now();
    const r = int3(['tracefs'], 'sleep 1000000\necho 1 > tracing_on\n');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(Date.now() - start).toBeLessThan(30_000);
  });
});

describe('-o', () => {
  it('should be checked before the run, and written only at its end', () => {
    const start = Date.now();
    const r = int3(['trace', '-o', '/nonexistent/x', '--run', 'spin 2000000000']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^int3: cannot write '\/nonexistent\/x': no such directory '\/nonexistent'/);
    expect(Date.now() - start).toBeLessThan(20_000);
    const rec = int3(['record', '-o', dir, '--run', 'hello']);
    expect(rec.stderr).toMatch(`cannot write '${dir}': it is a directory`);
    expect(rec.status).toBe(2);
    const out = join(dir, 'trace.txt');
    expect(int3(['trace', '-e', OPEN, '-o', out, '--run', 'cat /etc/motd']).status).toBe(0);
    expect(existsSync(out)).toBe(true);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});
