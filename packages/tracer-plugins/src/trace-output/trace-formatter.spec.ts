import { describe, expect, it } from 'vitest';
import { TraceBuffer } from '../ring-buffer/trace-buffer.js';
import { encodeRecord } from './encode-record.js';
import { TraceFlag } from './lat-fmt.js';
import { SAMPLE_EVENT } from './sample-event.fixture.js';
import { TraceFormatter } from './trace-formatter.js';

const formatter = new TraceFormatter({
  eventType: (id) => (id === SAMPLE_EVENT.id ? SAMPLE_EVENT : undefined),
  comm: (pid) => (pid === 1447 ? 'cat' : undefined),
  formatContext: { symbolize: (a) => (a === 0xffffffff81000000n ? 'do_sys_open+0x0/0xd6' : undefined) },
});

function record(pid: number, dfd: number, flags = 0) {
  return encodeRecord(SAMPLE_EVENT.fields, {
    common_type: SAMPLE_EVENT.id,
    common_flags: flags,
    common_preempt_count: 1,
    common_pid: pid,
    __probe_ip: 0xffffffff81000000n,
    dfd,
    filename: '/etc/passwd',
  });
}

describe(TraceFormatter, () => {
  it('should print the trace file: header, then records merged by time', () => {
    const buf = new TraceBuffer({ cpus: 2, bufferSizeKb: 1 });
    buf.write(1, 1_038_282_286_878_000, record(99, 4));
    buf.write(0, 1_038_282_286_875_400, record(1447, 3, TraceFlag.IRQS_OFF));
    const text = formatter.readTrace(buf);
    const lines = text.split('\n');
    expect(lines[2]).toBe('# entries-in-buffer/entries-written: 2/2   #P:2');
    expect(lines.slice(12)).toEqual([
      '             cat-1447    [000] d..1. 1038282.286875: myprobe: (do_sys_open+0x0/0xd6) dfd=3 filename="/etc/passwd"',
      '           <...>-99      [001] ...1. 1038282.286878: myprobe: (do_sys_open+0x0/0xd6) dfd=4 filename="/etc/passwd"',
      '',
    ]);
    expect(buf.entries).toBe(2);
  });

  it('should consume in trace_pipe and announce lost events before the next record of that CPU', () => {
    const buf = new TraceBuffer({ cpus: 1, bufferSizeKb: 1 });
    const size = record(1, 0).length; // 48 bytes + 12 header → 17 records per KiB
    expect(size).toBe(48);
    for (let i = 0; i < 20; i++) buf.write(0, i * 1000, record(1447, i));
    const out = formatter.readPipe(buf, 2).split('\n');
    expect(out[0]).toBe('CPU:0 [LOST 3 EVENTS]');
    expect(out[1]).toContain('dfd=3 ');
    expect(out[2]).toContain('dfd=4 ');
    expect(buf.entries).toBe(15);
    expect(formatter.readPipe(buf).split('\n')).toHaveLength(16);
    expect(formatter.readPipe(buf)).toBe('');
  });

  it('should print Unknown type for a record of an unregistered event', () => {
    const buf = new TraceBuffer({ cpus: 1, bufferSizeKb: 1 });
    buf.write(0, 0, encodeRecord([], { common_type: 3, common_pid: 0 }));
    expect(formatter.readPipe(buf)).toBe('          <idle>-0       [000] .....     0.000000: Unknown type 3\n');
  });
});
