import { describe, expect, it } from 'vitest';
import { crc32 } from './crc32.js';
import { decodeLog, encodeLogLine, logHeaderLine } from './log-codec.js';

const enc = (s: string) => new TextEncoder().encode(s);
/** A log line around a JSON text as written (possibly one the encoder would never write). */
const crcLine = (json: string) => `${crc32(enc(json)).toString(16).padStart(8, '0')} ${json}\n`;

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
    expect(() => decodeLog(new Uint8Array([0xff, 0xfe, 0x00]), 'x.log')).toThrow(/no 'INT3LOG' header/);
    const badLine = new Uint8Array([...enc(logHeaderLine()), 0xff, 0xfe, 0x0a]);
    expect(() => decodeLog(badLine, 'x.log')).toThrow('x.log: corrupt log: entry 0 (line 2): not UTF-8 text');
  });

  it('should reject another format version', () => {
    expect(() => decodeLog(enc('INT3LOG 9\n'), 'x.log')).toThrow(/version 9 is not supported/);
  });

  it('should reject a flipped byte with the line number', () => {
    const text = good().replace('motd', 'motD');
    expect(() => decodeLog(enc(text), 'run.int3log')).toThrow(/run.int3log: corrupt log: entry 1 \(line 3\): checksum/);
  });

  it('should read the header exactly as the format says: INT3LOG, one space, the version in decimal', () => {
    for (const header of ['INT3LOG 0x4', 'INT3LOG 4e0', 'INT3LOG  4', 'INT3LOG 4\r', 'INT3LOG 04', 'INT3LOG 4 ']) {
      expect(() => decodeLog(enc(`${header}\n`), 'x.log'), header).toThrow(/x.log: not an int3 log \(header /);
    }
    for (const old of [1, 2, 3]) {
      expect(() => decodeLog(enc(`INT3LOG ${old}\n`), 'x.log')).toThrow(
        `x.log: log format version ${old} is not supported (this int3 reads version 4; record the run again)`,
      );
    }
    expect(decodeLog(enc('INT3LOG 4\n'), 'x.log')).toEqual([]);
  });

  it('should report JSON nested too deeply for the parser as too deeply nested, not invalid', () => {
    const deep = `{"type":"x","a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    expect(() => decodeLog(enc(logHeaderLine() + crcLine('{"type":"config"}') + crcLine(deep)), 'x.log')).toThrow(
      'x.log: corrupt log: entry 1 (line 3): too deeply nested (over 32 levels)',
    );
  });

  it('should refuse a $big that is no 64-bit hex value', () => {
    const bad = '{"type":"config","a":{"$big":"zz"}}';
    expect(() => decodeLog(enc(logHeaderLine() + crcLine(bad)), 'x.log')).toThrow(
      `x.log: corrupt log: entry 0 (line 2): '$big' "zz" is not a 64-bit hex value`,
    );
  });

  it('should reject a truncated file', () => {
    const text = good();
    expect(() => decodeLog(enc(text.slice(0, text.length - 10)), 'r')).toThrow(/truncated/);
  });
});
