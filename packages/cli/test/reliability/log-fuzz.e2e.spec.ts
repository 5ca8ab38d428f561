// The log-fuzz property (issue 13, Proof): a recorded log, truncated, with a byte flipped, a line
// deleted, duplicated or two swapped, or a value edited with its checksum recomputed, replays to the
// exact original output or is refused with one clear line and exit 2 — never an internal error, a
// hang or another output. `INT3_FUZZ_RUNS=500` runs a long campaign (default 6).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { int3, ok } from '../int3.js';
import { crcLine } from './crafted-log.js';

const RUNS = Number(process.env.INT3_FUZZ_RUNS ?? 6);
const dir = mkdtempSync(join(tmpdir(), 'int3-fuzz-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const good = join(dir, 'good.int3log');
let original: string;
let bytes: Buffer;

beforeAll(() => {
  original = ok(['record', '-o', good, '-e', 'p:open do_sys_open dfd=%di', '--run', 'cat /etc/motd']);
  bytes = readFileSync(good);
});

/** The log's lines, each with its newline. */
const linesOf = (b: Buffer) => b.toString('latin1').split(/(?<=\n)/);

type Mutation =
  | { kind: 'truncate'; at: number }
  | { kind: 'flip'; at: number; bit: number }
  | { kind: 'delete' | 'duplicate'; line: number }
  | { kind: 'swap'; line: number; other: number }
  | { kind: 'recrc'; line: number; at: number; char: string };

function mutate(m: Mutation): Buffer {
  const lines = linesOf(bytes);
  const pick = (n: number) => 1 + (n % (lines.length - 1));
  switch (m.kind) {
    case 'truncate':
      return bytes.subarray(0, m.at % bytes.length);
    case 'flip': {
      const b = Buffer.from(bytes);
      b[m.at % b.length] ^= 1 << m.bit;
      return b;
    }
    case 'delete':
      lines.splice(pick(m.line), 1);
      break;
    case 'duplicate':
      lines.splice(pick(m.line), 0, lines[pick(m.line)]);
      break;
    case 'swap': {
      const [a, b] = [pick(m.line), pick(m.other)];
      [lines[a], lines[b]] = [lines[b], lines[a]];
      break;
    }
    case 'recrc': {
      // Replace one character of the JSON and recompute the checksum: only the replay can tell.
      const i = pick(m.line);
      const json = lines[i].slice(9, -1);
      const at = m.at % json.length;
      lines[i] = crcLine(json.slice(0, at) + m.char + json.slice(at + 1));
      break;
    }
  }
  return Buffer.from(lines.join(''), 'latin1');
}

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({ kind: fc.constantFrom('delete' as const, 'duplicate' as const), line: fc.nat() }),
  fc.record({ kind: fc.constant('swap' as const), line: fc.nat(), other: fc.nat() }),
  fc.record({
    kind: fc.constant('recrc' as const),
    line: fc.nat(),
    at: fc.nat(),
    char: fc.constantFrom('0', '1', '9', 'a', 'f', '"', ',', '}', '-', 'x'),
  }),
);

describe('int3 replay of a mutated log', () => {
  it(
    'should print the exact original output, or refuse the log in one line with exit 2',
    () => {
      fc.assert(
        fc.property(mutation, (m) => {
          const log = join(dir, 'mutant.int3log');
          writeFileSync(log, mutate(m));
          const r = int3(['replay', log]);
          if (r.status === 0) {
            expect(r.stdout, JSON.stringify(m)).toBe(original);
            return;
          }
          expect(r.stderr, JSON.stringify(m)).not.toMatch(/internal error|\n\s+at /);
          expect(r.stderr.trimEnd().split('\n'), JSON.stringify(m)).toHaveLength(1);
          expect(r.stdout, JSON.stringify(m)).toBe('');
          expect(r.status, `${JSON.stringify(m)}: ${r.stderr}`).toBe(2);
        }),
        { numRuns: RUNS, seed: Number(process.env.INT3_FUZZ_SEED ?? 13) },
      );
    },
    120_000 + RUNS * 60_000,
  );
});
