/**
 * fast-check settings of the differential tests: a small default run (the suite stays fast); set
 * INT3_FUZZ_RUNS for a long campaign and INT3_FUZZ_SEED to replay or vary one.
 */
export const FUZZ_RUNS = Number(process.env.INT3_FUZZ_RUNS ?? 200);

/** The base seed; each test derives its own from it so adding a test does not shift the others. */
export const FUZZ_SEED = Number(process.env.INT3_FUZZ_SEED ?? 0x1e73);

/** A stable per-test seed. */
export function seedFor(name: string): number {
  let h = FUZZ_SEED | 0;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
