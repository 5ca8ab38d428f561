import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bootWithKprobes, run } from './support/machine.js';
import {
  checkKretprobeTransparency,
  TRANSPARENCY_WORKLOADS,
  transparencyOracle,
} from './support/transparency-oracle.js';

const RUNS = Number(process.env.INT3_FUZZ_RUNS ?? 40);
const WORKLOADS = TRANSPARENCY_WORKLOADS;

const oracles = WORKLOADS.map(transparencyOracle);

describe('transparency with jump optimization (an optimized probe never changes what the kernel computes)', () => {
  it('should give the same output with a no-op kprobe optimized at any executed instruction, hit exactly as often', () => {
    let optimized = 0;
    fc.assert(
      fc.property(fc.record({ w: fc.nat({ max: WORKLOADS.length - 1 }), i: fc.nat() }), ({ w, i }) => {
        const o = oracles[w];
        const at = o.addresses[i % o.addresses.length];
        const { m, k } = bootWithKprobes();
        let hits = 0;
        try {
          k.registerKprobe({
            addr: at,
            preHandler: () => {
              hits++;
              return 0;
            },
          });
        } catch (e) {
          if (m.kallsyms.lookup(at)?.sym.name === 'entry_SYSCALL_64') return;
          throw e;
        }
        k.optimization.runNow();
        if (k.get(at)!.optimized) optimized++;
        const traps = { n: 0 };
        m.streams.traps$.subscribe((t) => t.vector === 3 && t.rip - 1n === at && traps.n++);
        expect(run(m, WORKLOADS[w]), m.kallsyms.format(at)).toBe(o.output);
        expect(hits, m.kallsyms.format(at)).toBe(o.counts.get(at));
        if (k.get(at)!.optimized) expect(traps.n, m.kallsyms.format(at)).toBe(0);
      }),
      { numRuns: RUNS },
    );
    if (RUNS >= 20) expect(optimized).toBeGreaterThan(0);
  });

  it('should take every hit of an optimized probe through its gate, with no trap and the output unchanged', () => {
    const o = oracles[0];
    const { m, k } = bootWithKprobes();
    const at = m.kallsyms.lookupName('vfs_read')!.address;
    const paths: string[] = [];
    k.events$.subscribe((e) => {
      if (e.type === 'kprobe:hit') paths.push(e.path);
    });
    k.registerKprobe({ addr: at, preHandler: () => 0 });
    k.optimization.runNow();
    const traps = { n: 0 };
    m.streams.traps$.subscribe((t) => t.vector === 3 && traps.n++);
    expect(run(m, WORKLOADS[0])).toBe(o.output);
    expect(o.counts.get(at)).toBeGreaterThanOrEqual(2);
    expect(paths).toEqual(Array(o.counts.get(at)!).fill('optimized'));
    expect(traps.n).toBe(0);
  });

  it('should give the same output with an optimized no-op kretprobe on any entered function, one return per entry', () => {
    let optimized = 0;
    fc.assert(
      fc.property(fc.record({ w: fc.nat({ max: WORKLOADS.length - 1 }), i: fc.nat() }), ({ w, i }) => {
        const o = oracles[w];
        const at = o.entries[i % o.entries.length];
        checkKretprobeTransparency(o, WORKLOADS[w], at, (k) => {
          k.optimization.runNow();
          if (k.get(at)!.optimized) optimized++;
        });
      }),
      { numRuns: RUNS },
    );
    if (RUNS >= 20) expect(optimized).toBeGreaterThan(0);
  });
});
