import {
  CORPUS_FUNCTIONS,
  type CorpusCall,
  corpusCallArbitrary,
  describeCall,
  normaliseReturn,
  seedFor,
} from '@int3/cpu/testing';
import type { Machine, PtRegs } from '@int3/kernel';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isExceptionInsn } from '../src/arch/x86/is-exception-insn.js';
import type { Kprobe } from '../src/core/kprobe.js';
import type { Kretprobe } from '../src/core/kretprobe.js';
import { type Kprobes, kprobesCore } from '../src/kprobes.js';
import {
  CORPUS_OPT_LEVELS,
  type CorpusModule,
  callCorpus,
  callTarget,
  type GuestCorpusCall,
  isWide,
  loadCorpusModule,
} from './support/corpus-module.js';
import { bootWithKprobes } from './support/machine.js';

/** Runs per property; INT3_FUZZ_RUNS raises it for a campaign (INT3_FUZZ_SEED varies the seed). */
const RUNS = Number(process.env.INT3_FUZZ_RUNS ?? 60);
/** A campaign's time limit grows with its runs (the default run takes a few seconds). */
const TIMEOUT = Math.max(60_000, RUNS * 250);

/** A booted kernel with kprobes and the corpus loaded at every optimisation level. */
interface Harness {
  readonly m: Machine;
  readonly k: Kprobes;
  readonly corpora: readonly CorpusModule[];
  /** Each module's text as loaded, to check that unregistering leaves no byte changed. */
  readonly pristine: readonly Uint8Array[];
}

function harness(): Harness {
  const { m, k } = bootWithKprobes();
  const corpora = CORPUS_OPT_LEVELS.map((opt) => loadCorpusModule(m, opt));
  const pristine = corpora.map((c) => m.space.read(c.module.textStart, Number(c.module.textEnd - c.module.textStart)));
  return { m, k, corpora, pristine };
}

/** What the unprobed call did, instruction by instruction. */
interface Oracle extends GuestCorpusCall {
  /** Executions of each instruction of the module. */
  readonly executed: ReadonlyMap<bigint, number>;
  /**
   * The function entries the call executed. An entry probe fires on every execution of the entry
   * instruction, a jump back to it included (gcc -Os turns `sift_down_u16`'s tail into such a loop), as
   * in Linux: that is what a kretprobe or jprobe counts.
   */
  readonly entries: readonly bigint[];
}

const sorted = (xs: Iterable<bigint>) => [...xs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** The oracle: the same call unprobed, under `m.kernel.stepHook`. */
function oracle(h: Harness, cm: CorpusModule, call: CorpusCall): Oracle {
  const executed = new Map<bigint, number>();
  h.m.kernel.stepHook = (_cpu, rip) => {
    if (cm.contains(rip)) executed.set(rip, (executed.get(rip) ?? 0) + 1);
  };
  try {
    const done = callCorpus(h.m, cm, call);
    const functions = new Set([...cm.functions.values()].map((f) => f.address));
    return { ...done, executed, entries: sorted([...executed.keys()].filter((a) => functions.has(a))) };
  } finally {
    h.m.kernel.stepHook = undefined;
  }
}

/** A call of any corpus function at any optimisation level, with the choices a property needs. */
function callArbitrary<T>(extra: fc.Arbitrary<T>) {
  return fc
    .record({ opt: fc.nat({ max: CORPUS_OPT_LEVELS.length - 1 }), fn: fc.nat({ max: CORPUS_FUNCTIONS.length - 1 }) })
    .chain(({ opt, fn }) =>
      fc.record({ opt: fc.constant(opt), call: corpusCallArbitrary(CORPUS_FUNCTIONS, fn), extra }),
    );
}

/** `corpus_O2: sort_quick_i64(buf[8]=…) probed at sort_quick_i64+0x1c [mov …]`, for failure messages. */
function where(h: Harness, cm: CorpusModule, call: CorpusCall, at: bigint): string {
  const f = CORPUS_FUNCTIONS[call.fn];
  const insn = cm.insns.get(at);
  return `corpus${cm.opt}: ${describeCall(f, call)} probed at ${h.m.kallsyms.format(at)} [${insn?.text}]`;
}

/** Unregistering must leave every byte of the module's text as loaded. */
function expectPristine(h: Harness, cm: CorpusModule, what: string): void {
  const i = h.corpora.indexOf(cm);
  const now = h.m.space.read(cm.module.textStart, h.pristine[i].length);
  expect(Buffer.from(now).equals(h.pristine[i]), `${what}: text restored`).toBe(true);
}

/** Half the time the called function's own entry (its result and arguments are known), else any entered. */
const entryChoice = fc.record({ own: fc.boolean(), i: fc.nat() });

function pickEntry(cm: CorpusModule, call: CorpusCall, o: Oracle, choice: { own: boolean; i: number }): bigint {
  if (choice.own) return cm.functions.get(CORPUS_FUNCTIONS[call.fn].name)!.address;
  return o.entries[choice.i % o.entries.length];
}

describe('transparency on the CPU corpus (kprobes never change what a function computes)', () => {
  it(
    'should give the same result with a no-op kprobe on any instruction boundary, hit exactly as often',
    () => {
      const h = harness();
      const choice = fc.record({
        /** own: any boundary of the called function (executed or not); executed: any instruction the call ran. */
        pool: fc.constantFrom('own', 'executed'),
        i: fc.nat(),
        post: fc.boolean(),
        observed: fc.boolean(),
      });
      fc.assert(
        fc.property(callArbitrary(choice), ({ opt, call, extra }) => {
          const cm = h.corpora[opt];
          const f = CORPUS_FUNCTIONS[call.fn];
          const o = oracle(h, cm, call);
          const own = cm.functions.get(f.name)!.boundaries;
          const pool = extra.pool === 'own' ? own : sorted(o.executed.keys());
          const at = pool[extra.i % pool.length];
          const what = where(h, cm, call, at);
          let hits = 0;
          let posts = 0;
          let hitEvents = 0;
          const kp: Kprobe = {
            addr: at,
            preHandler: () => {
              hits++;
              return 0;
            },
            postHandler: extra.post ? () => void posts++ : undefined,
          };
          const exception = isExceptionInsn(Uint8Array.from(cm.insns.get(at)!.bytes));
          if (exception) {
            expect(() => h.k.registerKprobe(kp), what).toThrow(/EINVAL/);
            return;
          }
          const sub = extra.observed
            ? h.k.events$.subscribe((e) => {
                if (e.type === 'kprobe:hit' && e.addr === at) hitEvents++;
              })
            : undefined;
          h.k.registerKprobe(kp);
          let probed: GuestCorpusCall;
          try {
            probed = callCorpus(h.m, cm, call);
          } finally {
            h.k.unregisterKprobe(kp);
            sub?.unsubscribe();
          }
          expect(probed.result, what).toEqual(o.result);
          expect(probed.elapsed, `${what}: virtual time`).toBe(o.elapsed);
          expect(hits, what).toBe(o.executed.get(at) ?? 0);
          expect(kp.nmissed ?? 0, what).toBe(0);
          if (extra.post) expect(posts, what).toBe(hits);
          if (extra.observed) expect(hitEvents, what).toBe(hits);
          expectPristine(h, cm, what);
        }),
        { numRuns: RUNS, seed: seedFor('corpus kprobe') },
      );
    },
    TIMEOUT,
  );

  it(
    'should give the same result with a no-op kretprobe on any entered function, one return per entry',
    () => {
      const h = harness();
      fc.assert(
        fc.property(callArbitrary(entryChoice), ({ opt, call, extra }) => {
          const cm = h.corpora[opt];
          const f = CORPUS_FUNCTIONS[call.fn];
          const o = oracle(h, cm, call);
          const at = pickEntry(cm, call, o, extra);
          const what = where(h, cm, call, at);
          let returns = 0;
          let entries = 0;
          let last: [bigint, bigint] = [0n, 0n];
          const rp: Kretprobe = {
            kp: { addr: at },
            maxactive: 64,
            entryHandler: () => void entries++,
            handler: (_ri, regs: PtRegs) => {
              returns++;
              last = [regs.ax, regs.get('dx')];
            },
          };
          h.k.registerKretprobe(rp);
          let probed: GuestCorpusCall;
          try {
            probed = callCorpus(h.m, cm, call);
          } finally {
            h.k.unregisterKretprobe(rp);
          }
          expect(probed.result, what).toEqual(o.result);
          expect(probed.elapsed, `${what}: virtual time`).toBe(o.elapsed);
          const expected = o.executed.get(at)!;
          // Recursion deeper than maxactive is missed, not lost.
          expect(returns + (rp.nmissed ?? 0), what).toBe(expected);
          expect(entries, what).toBe(returns);
          expect(kprobesCore(h.k).kretprobes.activeInstances, what).toBe(0);
          // The outermost return is the last: its rax (rdx:rax) is what the caller got.
          const direct = cm.functions.get(f.name)!.address;
          if (at === direct)
            expect(normaliseReturn(f.returns, last[0], last[1]), what).toEqual({ lo: o.result.lo, hi: o.result.hi });
          expectPristine(h, cm, what);
        }),
        { numRuns: RUNS, seed: seedFor('corpus kretprobe') },
      );
    },
    TIMEOUT,
  );

  it(
    'should give the same result with a jprobe at any entered function, entered once per call with its arguments',
    () => {
      const h = harness();
      fc.assert(
        fc.property(callArbitrary(entryChoice), ({ opt, call, extra }) => {
          const cm = h.corpora[opt];
          const f = CORPUS_FUNCTIONS[call.fn];
          const o = oracle(h, cm, call);
          const at = pickEntry(cm, call, o, extra);
          const what = where(h, cm, call, at);
          const seen: (readonly bigint[])[] = [];
          const jp = { kp: { addr: at }, entry: (args: readonly bigint[]) => void seen.push(args) };
          h.k.registerJprobe(jp);
          let probed: GuestCorpusCall;
          try {
            probed = callCorpus(h.m, cm, call);
          } finally {
            h.k.unregisterJprobe(jp);
          }
          expect(probed.result, what).toEqual(o.result);
          expect(probed.elapsed, `${what}: virtual time`).toBe(o.elapsed);
          expect(seen.length, what).toBe(o.executed.get(at));
          if (at === cm.functions.get(f.name)!.address) {
            // Only the low bits of a narrow integer argument are defined (SysV); the wide wrappers pass
            // 64-bit values, so compare what the C type keeps.
            const keep = (v: bigint, n: number) => {
              const spec = f.args[n];
              return spec.kind === 'int' && isWide(f) ? BigInt.asUintN(Number(spec.type.slice(1)), v) : v;
            };
            expect(seen[0].slice(0, f.args.length).map(keep), what).toEqual(
              probed.passed.slice(0, f.args.length).map(keep),
            );
          }
          expectPristine(h, cm, what);
        }),
        { numRuns: RUNS, seed: seedFor('corpus jprobe') },
      );
    },
    TIMEOUT,
  );

  it(
    'should give the same result with kprobes on every boundary at once, plus a kretprobe and a jprobe at entry',
    () => {
      const h = harness();
      fc.assert(
        fc.property(callArbitrary(fc.constant(0)), ({ opt, call }) => {
          const cm = h.corpora[opt];
          const f = cm.functions.get(CORPUS_FUNCTIONS[call.fn].name)!;
          const o = oracle(h, cm, call);
          const what = where(h, cm, call, f.address);
          const hits = new Map<bigint, number>();
          const kps = f.boundaries
            .filter((a) => !isExceptionInsn(Uint8Array.from(cm.insns.get(a)!.bytes)))
            .map((addr) => ({ addr, preHandler: () => void hits.set(addr, (hits.get(addr) ?? 0) + 1) }));
          let returns = 0;
          let jentries = 0;
          const rp: Kretprobe = { kp: { addr: f.address }, maxactive: 64, handler: () => void returns++ };
          const jp = { kp: { addr: f.address }, entry: () => void jentries++ };
          h.k.registerKprobes(kps);
          h.k.registerKretprobe(rp);
          h.k.registerJprobe(jp);
          let probed: GuestCorpusCall;
          try {
            probed = callCorpus(h.m, cm, call);
          } finally {
            h.k.unregisterJprobe(jp);
            h.k.unregisterKretprobe(rp);
            h.k.unregisterKprobes(kps);
          }
          expect(probed.result, what).toEqual(o.result);
          expect(probed.elapsed, `${what}: virtual time`).toBe(o.elapsed);
          for (const kp of kps)
            expect(hits.get(kp.addr) ?? 0, where(h, cm, call, kp.addr)).toBe(o.executed.get(kp.addr) ?? 0);
          expect([returns + (rp.nmissed ?? 0), jentries], what).toEqual([
            o.executed.get(f.address),
            o.executed.get(f.address),
          ]);
          expectPristine(h, cm, what);
        }),
        { numRuns: Math.ceil(RUNS / 2), seed: seedFor('corpus every boundary') },
      );
    },
    TIMEOUT,
  );

  it('should find every manifest function in the module at every optimisation level', () => {
    const h = harness();
    for (const cm of h.corpora)
      for (const f of CORPUS_FUNCTIONS) expect(callTarget(cm, f), f.name).toBeTypeOf('bigint');
  });
});
