import { describe, expect, it } from 'vitest';
import { bootTraceFs, run } from '../../test/support/tracefs-machine.js';
import type { ChromeTraceDocument } from './chrome-trace-event.js';
import { exportChromeTrace } from './export-chrome-trace.js';

function traced(cpus = 1) {
  const { m, fs } = bootTraceFs(cpus);
  fs.write(
    'kprobe_events',
    ['p:in vfs_read fd_count=%dx:u64', 'r:out vfs_read ret=$retval:s64', 'p:open do_sys_open name=+0(%si):string'].join(
      '\n',
    ),
  );
  fs.write('events/kprobes/enable', '1');
  run(m, ['cat', '/etc/motd']);
  return fs;
}

describe(exportChromeTrace, () => {
  it('should write a return whose entry was not traced as an instant', () => {
    const { m, fs } = bootTraceFs();
    fs.write('kprobe_events', 'r:ret do_sys_open fd=$retval:s32');
    fs.write('events/kprobes/enable', '1');
    run(m, ['cat', '/etc/motd']);
    const doc = JSON.parse(exportChromeTrace(fs)) as ChromeTraceDocument;
    expect(doc.traceEvents.filter((e) => e.ph !== 'M')).toEqual([
      expect.objectContaining({
        name: 'do_sys_open (return)',
        ph: 'i',
        s: 't',
        cat: 'kretprobe',
        args: { fd: 3, event: 'kprobes/ret' },
      }),
    ]);
  });

  it('should turn the tracefs buffer into Trace Event JSON that parses back, B/E nested per task', () => {
    const fs = traced();
    const text = exportChromeTrace(fs);
    const doc = JSON.parse(text) as ChromeTraceDocument;
    expect(JSON.stringify(doc)).toBe(text.trimEnd());
    expect(doc.displayTimeUnit).toBe('ns');
    const reads = doc.traceEvents.filter((e) => e.name === 'vfs_read');
    expect(reads.length).toBeGreaterThanOrEqual(2);
    const open: number[] = [];
    for (const e of reads) {
      if (e.ph === 'B') open.push(e.ts ?? 0);
      else {
        expect(e.ph).toBe('E');
        expect(e.ts ?? 0).toBeGreaterThanOrEqual(open.pop() ?? Number.POSITIVE_INFINITY);
      }
    }
    expect(open).toEqual([]);
    const begin = reads.find((e) => e.ph === 'B');
    const end = reads.find((e) => e.ph === 'E');
    expect(begin?.args).toMatchObject({ event: 'kprobes/in', fd_count: expect.any(Number) });
    expect(end?.args).toMatchObject({ event: 'kprobes/out', ret: expect.any(Number) });
    // cat's reads of /etc/motd return the bytes read, then 0 at end of file.
    expect(reads.filter((e) => e.ph === 'E').map((e) => e.args?.ret)).toContain(0);
  });

  it('should write plain kprobes as instants with their fetched fields on the task track', () => {
    const fs = traced();
    const doc = JSON.parse(exportChromeTrace(fs)) as ChromeTraceDocument;
    const opens = doc.traceEvents.filter((e) => e.name === 'open');
    expect(opens).toEqual([
      expect.objectContaining({ ph: 'i', s: 't', cat: 'kprobe', args: { name: '/etc/motd', event: 'kprobes/open' } }),
    ]);
    const thread = doc.traceEvents.find((e) => e.ph === 'M' && e.name === 'thread_name' && e.tid === opens[0].tid);
    expect(thread?.args?.name).toBe(`cat-${opens[0].tid}`);
  });

  it('should emit X events with durations in microseconds of virtual time when complete', () => {
    const fs = traced();
    const bPairs = (JSON.parse(exportChromeTrace(fs)) as ChromeTraceDocument).traceEvents.filter(
      (e) => e.name === 'vfs_read',
    );
    const xs = (JSON.parse(exportChromeTrace(fs, { complete: true })) as ChromeTraceDocument).traceEvents.filter(
      (e) => e.name === 'vfs_read',
    );
    expect(xs.every((e) => e.ph === 'X')).toBe(true);
    expect(xs).toHaveLength(bPairs.length / 2);
    expect(xs[0].dur).toBeCloseTo((bPairs[1].ts ?? 0) - (bPairs[0].ts ?? 0), 6);
    expect(xs[0].ts).toBe(bPairs[0].ts);
  });
});
