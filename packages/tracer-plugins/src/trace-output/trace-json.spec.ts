import { describe, expect, it } from 'vitest';
import { TraceBuffer } from '../ring-buffer/trace-buffer.js';
import { encodeRecord } from './encode-record.js';
import { SAMPLE_EVENT } from './sample-event.fixture.js';
import { exportTraceJson } from './trace-json.js';

describe(exportTraceJson, () => {
  it('should write one JSON object per record with fields decoded per descriptor', () => {
    const buf = new TraceBuffer({ cpus: 2, bufferSizeKb: 1 });
    const rec = encodeRecord(SAMPLE_EVENT.fields, {
      common_type: SAMPLE_EVENT.id,
      common_pid: 42,
      __probe_ip: 0xffffffff81000000n,
      dfd: -100,
      filename: 'a.txt',
      big: 7n,
      pair: [1, 65535],
    });
    buf.write(1, 5000, rec);
    buf.write(0, 6000, encodeRecord([], { common_type: 77, common_pid: 1 }));
    const lines = exportTraceJson(buf, {
      eventType: (id) => (id === SAMPLE_EVENT.id ? SAMPLE_EVENT : undefined),
      comm: () => 'bash',
    })
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([
      {
        ts: 5000,
        cpu: 1,
        pid: 42,
        comm: 'bash',
        event: 'kprobes:myprobe',
        fields: { __probe_ip: '18446744071578845184', dfd: -100, filename: 'a.txt', big: 7, pair: [1, 65535] },
      },
      { ts: 6000, cpu: 0, pid: 1, comm: 'bash', event: 'unknown:77', fields: {} },
    ]);
  });

  it('should return an empty string for an empty buffer', () => {
    expect(exportTraceJson(new TraceBuffer({ cpus: 1, bufferSizeKb: 1 }), { eventType: () => undefined })).toBe('');
  });
});
