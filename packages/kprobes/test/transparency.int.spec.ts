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
const pick = fc.record({ w: fc.nat({ max: WORKLOADS.length - 1 }), i: fc.nat() });
// With a post-handler every hit single-steps; without one the second hit on runs the boosted copy
// (jump optimization is off here, so the path does not depend on the optimizer; it has its own test).
const pickProbe = fc.record({ w: fc.nat({ max: WORKLOADS.length - 1 }), i: fc.nat(), post: fc.boolean() });

describe('transparency (kprobes never change what the kernel computes)', () => {
  it('should give the same output with a no-op kprobe on any executed instruction, hit exactly as often', () => {
    fc.assert(
      fc.property(pickProbe, ({ w, i, post }) => {
        const o = oracles[w];
        const at = o.addresses[i % o.addresses.length];
        const { m, k } = bootWithKprobes();
        k.optimization.enabled = false;
        let hits = 0;
        try {
          k.registerKprobe({
            addr: at,
            preHandler: () => {
              hits++;
              return 0;
            },
            ...(post ? { postHandler: () => {} } : {}),
          });
        } catch (e) {
          // Blacklisted text (the syscall entry) is refused; that is not a transparency failure.
          if (m.kallsyms.lookup(at)?.sym.name === 'entry_SYSCALL_64') return;
          throw e;
        }
        expect(run(m, WORKLOADS[w]), m.kallsyms.format(at)).toBe(o.output);
        expect(hits, m.kallsyms.format(at)).toBe(o.counts.get(at));
      }),
      { numRuns: RUNS },
    );
  });

  it('should give the same output with a boosted probe: one single-step, then every hit runs the boosted copy', () => {
    const o = oracles[0];
    const { m, k } = bootWithKprobes();
    k.optimization.enabled = false;
    const at = m.kallsyms.lookupName('vfs_read')!.address;
    const paths: string[] = [];
    k.events$.subscribe((e) => {
      if (e.type === 'kprobe:hit') paths.push(e.path);
    });
    k.registerKprobe({ addr: at, preHandler: () => 0 });
    expect(run(m, WORKLOADS[0])).toBe(o.output);
    expect(o.counts.get(at)).toBeGreaterThanOrEqual(2);
    expect(paths).toEqual(['int3', ...Array(o.counts.get(at)! - 1).fill('boosted')]);
  });

  it('should give the same output with a no-op kretprobe on any entered function, one return per entry, with or without the booster', () => {
    fc.assert(
      fc.property(pick, fc.boolean(), ({ w, i }, booster) => {
        const o = oracles[w];
        checkKretprobeTransparency(o, WORKLOADS[w], o.entries[i % o.entries.length], (k) => {
          k.config.kretprobeBooster = booster;
        });
      }),
      { numRuns: RUNS },
    );
  });

  it('should give the same output with a jprobe at any entered function, entered once per call', () => {
    fc.assert(
      fc.property(pick, ({ w, i }) => {
        const o = oracles[w];
        const at = o.entries[i % o.entries.length];
        const { m, k } = bootWithKprobes();
        let calls = 0;
        try {
          k.registerJprobe({ kp: { addr: at }, entry: () => calls++ });
        } catch (e) {
          if (m.kallsyms.lookup(at)?.sym.name === 'entry_SYSCALL_64') return;
          throw e;
        }
        expect(run(m, WORKLOADS[w]), m.kallsyms.format(at)).toBe(o.output);
        expect(calls, m.kallsyms.format(at)).toBe(o.counts.get(at));
      }),
      { numRuns: RUNS },
    );
  });
});
