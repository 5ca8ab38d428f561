import type { LogEntry } from '@int3/kernel';
import { describe, expect, it } from 'vitest';
import { applyTracefsWrite, createTracedSession, readKernelImage, tracerState } from './traced-session.js';
import { probeHits } from './tracefs-files.js';

const image = readKernelImage(undefined, 'trace');

/** The log after a probed run of `fork 2` and `cat`. */
function journaled(recordEvents: boolean | undefined): readonly LogEntry[] {
  const t = createTracedSession(image, 2, recordEvents === undefined ? {} : { recordEvents });
  applyTracefsWrite(t, 'kprobe_events', 'p:open do_sys_open\n', true);
  applyTracefsWrite(t, 'events/enable', '1\n', false);
  t.session.runWorkloads([
    ['fork', '2'],
    ['cat', '/etc/motd'],
  ]);
  expect(probeHits(t.fs)).toBeGreaterThan(0);
  return t.session.log();
}

const inputsAndCheckpoints = (log: readonly LogEntry[]) =>
  log.filter((e) => e.type === 'config' || e.type === 'checkpoint' || e.type.startsWith('input:'));

describe(createTracedSession, () => {
  it('should journal the events inputs cause when the log is to be written', () => {
    const types = journaled(true).map((e) => e.type);
    expect(types).toContain('task:created');
    expect(types).toContain('trap:raised');
  });

  it('should journal only inputs and their checkpoints by default, the same ones', () => {
    const log = journaled(undefined);
    expect(log).toEqual(inputsAndCheckpoints(log));
    expect(log).toEqual(inputsAndCheckpoints(journaled(true)));
  });

  it('should seek back across tracefs writes and forwards again to the same trace (no EEXIST SAME_PROBE)', () => {
    const t = createTracedSession(image, 2, { recordEvents: true, snapshotEveryNs: 50_000 });
    applyTracefsWrite(t, 'kprobe_events', 'p:open do_sys_open\n', true);
    applyTracefsWrite(t, 'events/enable', '1\n', false);
    t.session.runWorkloads([['cat', '/etc/motd']]);
    applyTracefsWrite(t, 'events/enable', '0\n', false);
    applyTracefsWrite(t, 'kprobe_events', '-:open\n', true);
    applyTracefsWrite(t, 'kprobe_events', 'p:read ksys_read\nr:readret vfs_read ret=$retval\n', true);
    applyTracefsWrite(t, 'events/enable', '1\n', false);
    t.session.runWorkloads([['cat', '/etc/motd']]);
    const end = t.session.log().length - 1;
    const trace = t.fs.read('trace');
    expect(trace).toContain('read:');
    const state = tracerState(t.fs);
    // Back to the start (before every definition), to the middle of each run, and to the end.
    for (const n of [0, 3, end - 2, end]) {
      t.session.seek(n);
      t.session.seek(end);
      expect(t.fs.read('trace')).toBe(trace);
      expect(tracerState(t.fs)).toBe(state);
    }
  });
});
