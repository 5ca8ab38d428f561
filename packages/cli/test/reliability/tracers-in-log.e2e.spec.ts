// Reliability (issue 13 §2): what decides the printed output is in the log and its hashes — the
// tracers a run started (--tracer, --plugin) included. A recording with tracers replays to the same
// output; a log whose tracer list was edited (and its checksums recomputed) does not replay.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { int3, REPO_ROOT } from '../int3.js';
import { readEntries, writeEntries } from './crafted-log.js';

vi.setConfig({ testTimeout: 240_000 });

const dir = mkdtempSync(join(tmpdir(), 'int3-tracers-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SYSCOUNT = './examples/plugin-syscount';

/** Records `args` into `name`, returns the log path and what record printed. */
function record(name: string, args: string[]) {
  const log = join(dir, name);
  const r = int3(['record', '-o', log, ...args], undefined, { cwd: REPO_ROOT });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return { log, stdout: r.stdout };
}

/** Rewrites the log's tracer-start input with `edit`, checksums right (what a forger would do). */
function edited(log: string, edit: (input: Record<string, unknown>) => Record<string, unknown>): string {
  const out = join(dir, `edited-${Date.now()}.int3log`);
  writeEntries(
    out,
    readEntries(log).map((e) => (e.type === 'input:tracer-start' ? { ...edit(e), type: e.type } : e)),
  );
  return out;
}

describe('a recording that started a tracer', () => {
  it('should journal the start and stop as inputs and replay to the same output, report included', () => {
    const { log, stdout } = record('funclatency.int3log', [
      '--tracer',
      'funclatency -u vfs_read',
      '--run',
      'cat /etc/motd',
    ]);
    expect(stdout).toMatch(/^# funclatency\n +usecs +: count/m);
    const types = readEntries(log).map((e) => e.type);
    expect(types.filter((t) => t === 'input:tracer-start' || t === 'input:tracers-stop')).toEqual([
      'input:tracer-start',
      'input:tracers-stop',
    ]);
    const r = int3(['replay', log]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(stdout);
  });

  it('should refuse a log whose tracer arguments were edited, even ones that probe the same functions', () => {
    const { log } = record('funclatency-u.int3log', ['--tracer', 'funclatency -u vfs_read', '--run', 'cat /etc/motd']);
    // -m instead of -u: the same probes (so the same memory), another report.
    const forged = edited(log, (e) => ({ ...e, args: ['-m', 'vfs_read'] }));
    const r = int3(['replay', forged]);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^int3: cannot replay .*: replay diverged at entry \d+ \(line \d+\): the state hash differs/,
    );
    expect(r.status).toBe(2);
  });

  it("should refuse a log naming another plugin's tracer, and a plugin's run replayed without it", () => {
    const { log } = record('funclatency-p.int3log', ['--tracer', 'funclatency vfs_read', '--run', 'cat /etc/motd']);
    const forged = edited(log, (e) => ({ ...e, plugin: 'evil@6.6.6' }));
    const r = int3(['replay', forged]);
    expect(r.stderr).toMatch(
      /started tracer 'funclatency' of plugin evil@6\.6\.6, not @int3\/funclatency@.*: load the plugin it was recorded with/,
    );
    expect(r.status).toBe(2);

    const syscount = record('syscount.int3log', ['--plugin', SYSCOUNT, '--run', 'cat /etc/motd']);
    expect(syscount.stdout).toMatch(/^# syscount$/m);
    const without = int3(['replay', syscount.log]);
    expect(without.stderr).toMatch(
      /started tracer 'syscount' of plugin @int3-examples\/plugin-syscount@0\.1\.0: load that plugin with --plugin/,
    );
    expect(without.status).toBe(2);
    const again = int3(['replay', syscount.log, '--plugin', SYSCOUNT], undefined, { cwd: REPO_ROOT });
    expect(again.stderr).toBe('');
    expect(again.status).toBe(0);
    expect(again.stdout).toBe(syscount.stdout);
  });
});
