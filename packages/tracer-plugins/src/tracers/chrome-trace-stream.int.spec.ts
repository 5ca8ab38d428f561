import { describe, expect, it } from 'vitest';
import { bootTraceFs, run } from '../../test/support/tracefs-machine.js';
import type { ChromeTraceDocument } from './chrome-trace-event.js';
import { ChromeTraceStream } from './chrome-trace-stream.js';
import { exportChromeTrace } from './export-chrome-trace.js';

const DEFS = [
  'p:in vfs_read fd_count=%dx:u64',
  'r:out vfs_read ret=$retval:s64',
  'p:open do_sys_open name=+0(%si):string',
];

function traced(cpus = 1) {
  const { m, fs } = bootTraceFs(cpus);
  fs.write('kprobe_events', DEFS.join('\n'));
  fs.write('events/kprobes/enable', '1');
  return { m, fs };
}

describe(ChromeTraceStream, () => {
  it('should give the document the two-pass export gives, draining the buffer as it goes', () => {
    const a = traced();
    run(a.m, ['cat', '/etc/motd']);
    const whole = exportChromeTrace(a.fs, { complete: true });
    const b = traced();
    const stream = new ChromeTraceStream(b.fs, { complete: true });
    const task = b.m.spawn(['cat', '/etc/motd']);
    // Drained at every record: entries and their returns land in different drains.
    let drains = 0;
    for (;;) {
      const r = b.m.run({ until: () => task.exited, stopAfter: () => b.fs.buffer.entries > 0 });
      stream.drain();
      drains++;
      if (r.reason !== 'stopped') break;
    }
    expect(drains).toBeGreaterThan(3);
    expect(b.fs.buffer.entries).toBe(0);
    expect(stream.text()).toBe(whole);
    const xs = (JSON.parse(whole) as ChromeTraceDocument).traceEvents.filter((e) => e.name === 'vfs_read');
    expect(xs.length).toBeGreaterThan(0);
    expect(xs.every((e) => e.ph === 'X')).toBe(true);
  });

  it('should write an instant per gap when the buffer lost records', () => {
    const { m, fs } = bootTraceFs(1);
    fs.write('buffer_size_kb', '1');
    fs.write('kprobe_events', 'p:s sock_sendmsg');
    fs.write('events/kprobes/enable', '1');
    run(m, ['net', '200']);
    const overrun = fs.buffer.cpu(0).overrun;
    const stream = new ChromeTraceStream(fs);
    stream.drain();
    const lost = stream.document().traceEvents.filter((e) => e.cat === 'lost');
    expect(lost).toEqual([expect.objectContaining({ name: `lost ${overrun} events`, ph: 'i', s: 'p', pid: 0 })]);
  });
});
