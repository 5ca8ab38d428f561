import { describe, expect, it } from 'vitest';
import { crc32 } from './crc32.js';
import { decodeLog, encodeLogLine, logHeaderLine } from './log-codec.js';

const enc = (s: string) => new TextEncoder().encode(s);

describe(crc32, () => {
  it('should match the IEEE CRC-32 check value', () => {
    expect(crc32(enc('123456789'))).toBe(0xcbf43926);
  });
});

describe(decodeLog, () => {
  const good = () =>
    logHeaderLine() +
    encodeLogLine({ type: 'config', cpus: 2 }) +
    encodeLogLine({ type: 'input:run', argv: ['cat', '/etc/motd'], at: 0xffffffff81000000n, neg: -5n });

  it('should round-trip entries, bigints included', () => {
    const entries = decodeLog(enc(good()), 'run.int3log');
    expect(entries).toEqual([
      { type: 'config', cpus: 2 },
      { type: 'input:run', argv: ['cat', '/etc/motd'], at: 0xffffffff81000000n, neg: -5n },
    ]);
  });

  it('should reject a foreign file', () => {
    expect(() => decodeLog(enc('hello\n'), 'x.log')).toThrow("x.log: not an int3 log (no 'INT3LOG' header)");
    expect(() => decodeLog(new Uint8Array([0xff, 0xfe, 0x00]), 'x.log')).toThrow(/not UTF-8/);
  });

  it('should reject another format version', () => {
    expect(() => decodeLog(enc('INT3LOG 9\n'), 'x.log')).toThrow(/version 9 is not supported/);
  });

  it('should reject a flipped byte with the line number', () => {
    const text = good().replace('motd', 'motD');
    expect(() => decodeLog(enc(text), 'run.int3log')).toThrow(/run.int3log: line 3: corrupt \(checksum/);
  });

  it('should reject a truncated file', () => {
    const text = good();
    expect(() => decodeLog(enc(text.slice(0, text.length - 10)), 'r')).toThrow(/truncated/);
  });
});
