import { describe, expect, it } from 'vitest';
import { TraceBuffer } from '../ring-buffer/trace-buffer.js';
import type { FetchContext } from './fetch-context.js';
import { fetchContextSource } from './fetch-context-source.js';
import { parseProbeCommand } from './parse-probe-command.js';
import type { ProbeResolver } from './probe-definition.js';
import { ProbeRecorder } from './probe-recorder.js';
import { resolveSymbols } from './resolve-symbols.js';

const resolver: ProbeResolver = {
  countSymbols: () => 1,
  functionEntry: () => 'entry',
  isModuleLoaded: () => true,
};

const strings = new Map([
  [0x1000n, 'first\0'],
  [0x2000n, 'second string\0'],
]);

const ctx: FetchContext = {
  readRegister: (n) => ({ di: 0x1000n, si: 0x2000n, dx: 0xfedcba9876543210n, r8: 0xfffffffffffffff8n })[n] ?? 0n,
  readKernel(addr, len) {
    for (const [base, s] of strings) {
      if (addr >= base && addr + BigInt(len) <= base + BigInt(s.length)) {
        const off = Number(addr - base);
        return Uint8Array.from(s.slice(off, off + len), (c) => c.charCodeAt(0));
      }
    }
    return undefined;
  },
  readUser: () => undefined,
  kernelStackNth: () => 0n,
  comm: 'bash',
};

function recorder(cmd: string): ProbeRecorder {
  const r = parseProbeCommand(cmd.split(' '), resolver);
  if (!r.ok) throw r.error;
  const s = resolveSymbols(r.value, () => undefined);
  if (!s.ok) throw s.error;
  return new ProbeRecorder(s.value, 9);
}

describe(ProbeRecorder, () => {
  it('should measure the strings first and then write exactly that many bytes in place', () => {
    const rec = recorder('p:e f a=+0(%di):string b=+0(%si):string x=%dx c=$comm');
    const src = fetchContextSource(ctx);
    expect(rec.dataSize(src)).toBe(6 + 14 + 5);
    const hit = { pid: 5, flags: 1, preemptCount: 0, ip: 0xffffffff81000000n };
    const expected = rec.record(ctx, hit).slice();
    expect(expected.length).toBe(rec.fixedSize + 25);
    // Into a ring-buffer reservation that does not start at offset 0.
    const buf = new TraceBuffer({ cpus: 1, bufferSizeKb: 1 });
    buf.write(0, 0, new Uint8Array(20));
    const ev = buf.reserve(0, rec.fixedSize + rec.dataSize(src), 1);
    if (ev === undefined) throw new Error('no room');
    ev.bytes.fill(0xee, ev.offset, ev.offset + ev.length);
    rec.store(src, hit, ev.bytes, ev.view, ev.offset);
    expect(ev.offset).toBeGreaterThan(0);
    expect(ev.bytes.slice(ev.offset, ev.offset + ev.length)).toEqual(expected);
  });

  it('should need no dynamic bytes for an event without strings, and store u64s exactly', () => {
    const rec = recorder('p:e f x=%dx:u64 y=%dx:x32');
    expect(rec.dataSize(fetchContextSource(ctx))).toBe(0);
    const bytes = rec.record(ctx, { pid: 1, flags: 0, preemptCount: 0, ip: 1n });
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    expect(view.getBigUint64(16, true)).toBe(0xfedcba9876543210n);
    expect(view.getUint32(24, true)).toBe(0x76543210);
  });

  it('should add offsets modulo 2^64 with the carry between halves, negative ones too', () => {
    const rec = recorder('p:e f a=-0x1000(%si):string b=+0x1008(%r8):string c=%r8:x64');
    const bytes = rec.record(ctx, { pid: 1, flags: 0, preemptCount: 0, ip: 1n });
    const text = new TextDecoder().decode(bytes.subarray(rec.fixedSize));
    expect(text).toBe('first\0first\0');
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    expect(view.getBigUint64(24, true)).toBe(0xfffffffffffffff8n);
  });
});
