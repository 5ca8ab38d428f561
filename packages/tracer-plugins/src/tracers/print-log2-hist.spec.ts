import { describe, expect, it } from 'vitest';
import { bpfLog2l, Log2Histogram } from './log2-histogram.js';
import { printLog2Hist } from './print-log2-hist.js';

describe(bpfLog2l, () => {
  it('should put v in slot floor(log2 v) + 1 and 0 in slot 0, beyond 32 bits too', () => {
    expect([0, 1, 2, 3, 4, 7, 8, 1023, 1024, 2 ** 32 - 1, 2 ** 32, 2 ** 40].map(bpfLog2l)).toEqual([
      0, 1, 2, 2, 3, 3, 4, 10, 11, 32, 33, 41,
    ]);
  });
});

describe(printLog2Hist, () => {
  it("should print bcc's rows with bars scaled to the largest slot", () => {
    const h = new Log2Histogram();
    for (const v of [5, 6, 9, 10, 12, 14]) h.add(v);
    expect(printLog2Hist(h, 'nsecs')).toBe(
      [
        '     nsecs               : count     distribution',
        '         0 -> 1          : 0        |                                        |',
        '         2 -> 3          : 0        |                                        |',
        '         4 -> 7          : 2        |********************                    |',
        '         8 -> 15         : 4        |****************************************|',
        '',
      ].join('\n'),
    );
  });

  it("should print bcc's own example rows exactly: bars are floor(40 x count / max)", () => {
    // The counts of bcc's tools/funclatency_example.txt (pthread_mutex_lock), slot 12 to slot 21.
    const counts = [508967, 70072, 27686, 5075, 2318, 581, 38, 5, 1, 9];
    const h = new Log2Histogram();
    counts.forEach((n, i) => {
      h.slots[12 + i] = n;
    });
    const rows = printLog2Hist(h, 'nsecs').split('\n');
    expect(rows.slice(12, 16)).toEqual([
      '      2048 -> 4095       : 508967   |****************************************|',
      '      4096 -> 8191       : 70072    |*****                                   |',
      '      8192 -> 16383      : 27686    |**                                      |',
      '     16384 -> 32767      : 5075     |                                        |',
    ]);
    expect(rows[21]).toBe('   1048576 -> 2097151    : 9        |                                        |');
  });

  it('should switch to 20-digit columns and half-width bars past slot 32', () => {
    const h = new Log2Histogram();
    h.add(2 ** 33);
    const rows = printLog2Hist(h, 'nsecs').split('\n');
    expect(rows[0]).toBe(`               ${'nsecs'.padEnd(29)} : count     distribution`);
    expect(rows[34]).toBe(`${'8589934592'.padStart(20)} -> ${'17179869183'.padEnd(20)} : 1        |${'*'.repeat(20)}|`);
  });

  it('should print nothing for an empty histogram', () => {
    expect(printLog2Hist(new Log2Histogram(), 'usecs')).toBe('');
  });
});
