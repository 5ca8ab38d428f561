import { describe, expect, it } from 'vitest';
import { LogLevel, PrintkBuffer } from './printk-buffer.js';

describe(PrintkBuffer, () => {
  it('should split lines, parse the level prefix and print dmesg timestamps', () => {
    const b = new PrintkBuffer();
    const recs = b.store('\x016hello\nworld\n', 1_500_000, 1);
    expect(recs.map((r) => [r.text, r.level, r.cpu])).toEqual([
      ['hello', LogLevel.INFO, 1],
      ['world', LogLevel.INFO, 1],
    ]);
    expect(b.dmesg()).toBe('[    0.001500] hello\n[    0.001500] world\n');
  });

  it('should join KERN_CONT continuations onto the open line of the same CPU', () => {
    const b = new PrintkBuffer();
    expect(b.store('\x013part one', 10, 0)).toEqual([]);
    const recs = b.store('\x01c and two\n', 20, 0);
    expect(recs).toHaveLength(1);
    expect(recs[0]).toMatchObject({ text: 'part one and two', level: LogLevel.ERR, timestampNs: 10 });
  });

  it('should close an open line when a new message starts on that CPU', () => {
    const b = new PrintkBuffer();
    b.store('unterminated', 0, 0);
    b.store('next\n', 5, 0);
    expect(b.records().map((r) => r.text)).toEqual(['unterminated', 'next']);
    expect(b.records().map((r) => r.seq)).toEqual([0, 1]);
  });

  it('should drop the oldest lines beyond its capacity and keep sequence numbers', () => {
    const b = new PrintkBuffer(20);
    for (let i = 0; i < 5; i++) b.store(`line ${i}\n`, i, 0);
    expect(b.records().map((r) => r.seq)).toEqual([3, 4]);
  });
});
