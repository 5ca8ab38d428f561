import { describe, expect, it } from 'vitest';
import { CpuState } from '../cpu-state.js';
import { LazyOp } from '../lazy-flags.js';
import { LAZY_FIELDS, LAZY_READS, type LazyKey, lazyFlush, lazyLocals, lazyStore } from './lazy-record.js';

const VALUES = [0, 1, -1, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0x7fffffff, -0x80000000, 0x12345678, -2];

/** Every flag CpuState derives from its record, and every condition. */
function observe(s: CpuState): number[] {
  const out = [s.getCF(), s.getPF(), s.getAF(), s.getZF(), s.getSF(), s.getOF()];
  for (let cc = 0; cc < 16; cc++) out.push(s.cond(cc) ? 1 : 0);
  return out;
}

/** A record of `kind` with pseudo-random fields from `seed` (size from the four operand sizes). */
function record(kind: number, seed: number): CpuState {
  const s = new CpuState();
  let x = seed;
  for (const f of LAZY_FIELDS) {
    x = (Math.imul(x, 1103515245) + 12345) | 0;
    const v = VALUES[(x >>> 8) % VALUES.length];
    (s as unknown as Record<string, number>)[f.field] = f.key === 'size' ? [1, 2, 4, 8][(x >>> 4) & 3] : v;
  }
  s.lop = kind;
  return s;
}

function local(key: LazyKey): string {
  return LAZY_FIELDS.find((f) => f.key === key)!.local;
}

describe('LAZY_READS', () => {
  for (const [name, kind] of Object.entries(LazyOp).filter(([, k]) => k !== LazyOp.None)) {
    it(`should list every field and only the fields CpuState's flags read for LazyOp.${name}`, () => {
      const reads = LAZY_READS[kind];
      const matters = new Set<LazyKey>();
      for (let seed = 1; seed < 400; seed++) {
        const base = record(kind, seed);
        const want = observe(base);
        for (const f of LAZY_FIELDS) {
          if (f.key === 'op') continue;
          for (const v of f.key === 'size' ? [1, 2, 4, 8] : VALUES) {
            const s = record(kind, seed);
            (s as unknown as Record<string, number>)[f.field] = v;
            const got = observe(s);
            if (got.join() !== want.join()) matters.add(f.key);
          }
        }
      }
      // Only what the record stores changes a flag; and each field it stores changes one somewhere.
      expect([...matters].sort()).toEqual([...reads].sort());
    });
  }
});

describe(lazyStore, () => {
  it("should store a kind's fields in CpuState's order, the kind first when given", () => {
    const v = { op: '6', size: '4', rl: 'a', rh: '0', cf: 'c', of: 'o' };
    expect(lazyStore(LazyOp.Result, v, (f) => `s.${f.field}`)).toEqual([
      's.lop = 6;',
      's.lsz = 4;',
      's.lrl = a;',
      's.lrh = 0;',
      's.lcf = c;',
      's.lof = o;',
    ]);
  });

  it('should store the union of the fields of the kinds a run-time kind may be', () => {
    const v = { size: 'z', dl: 'a', dh: 'b', sl: 'c', sh: 'd', rl: 'e', rh: 'f', cf: '0' };
    const lines = lazyStore([LazyOp.Add, LazyOp.Logic], v, (f) => f.field);
    expect(lines.map((l) => l.split(' ')[0])).toEqual(['lsz', 'ldl', 'ldh', 'lsl', 'lsh', 'lrl', 'lrh', 'lcf']);
  });

  it('should refuse a record that lacks a field its kind reads', () => {
    expect(() => lazyStore(LazyOp.Sub, { size: '4', rl: 'r', rh: '0' }, (f) => f.field)).toThrow(/needs dl/);
  });
});

describe(lazyFlush, () => {
  it("should write every local of the compiler's record back into CpuState's fields after a writer, nothing before", () => {
    const run = new Function(
      'cpu',
      `${lazyLocals()} ${local('op')} = 3; ${local('rl')} = 5; ${local('size')} = 8; ${lazyFlush('cpu')} ${lazyFlush('cpu')} return cpu;`,
    );
    const cpu = run({ lop: 0, lsz: 4, ldl: 9, ldh: 9, lsl: 9, lsh: 9, lrl: 9, lrh: 9, lcf: 9, lof: 9 });
    expect(cpu).toEqual({ lop: 3, lsz: 8, ldl: 0, ldh: 0, lsl: 0, lsh: 0, lrl: 5, lrh: 0, lcf: 0, lof: 0 });
    const untouched = new Function('cpu', `${lazyLocals()} ${lazyFlush('cpu')} return cpu;`)({ lop: 1 });
    expect(untouched).toEqual({ lop: 1 });
  });
});

describe('CpuState', () => {
  it('should declare the lazy-flag record as LAZY_FIELDS lays it out, with its start values', () => {
    const s = new CpuState() as unknown as Record<string, number>;
    for (const f of LAZY_FIELDS) expect(s[f.field]).toBe(f.init);
    const declared = Object.keys(s).filter((k) => /^l[a-z]{2}$/.test(k));
    expect(declared).toEqual(LAZY_FIELDS.map((f) => f.field));
  });
});
