import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MemoryForm, OperandKind } from './insn.js';
import { LazyOp } from './lazy-flags.js';
import { Op } from './op.js';
import { GENERATED_PARTS, partBounds } from './semantics/generated-parts.js';

const SRC = fileURLToPath(new URL('.', import.meta.url));
const TABLES: Record<string, Record<string, number>> = { Op, LazyOp, MemoryForm, OperandKind };

function* sources(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* sources(p);
    else if (name.endsWith('.ts') && !name.endsWith('.spec.ts')) yield p;
  }
}

/**
 * The interpreter's hot switches name their cases by number (`case 91 /* Op.AluReg *\/`): a literal
 * lets V8 build a jump table where `case Op.AluReg` would be a property load per case. The run loop's
 * dispatch, CpuState's flags, and the executors generated from src/semantics/ are written with them
 * by scripts/gen-dispatch.mjs; the hand-written executors name their constants (`Op.Xchg`). Each such
 * number is checked here against the table it names, so a renumbered op cannot leave a case behind.
 */
describe('numbered op, lazy-op and operand constants in the sources', () => {
  it('should each equal the constant its comment names', () => {
    const wrong: string[] = [];
    let seen = 0;
    for (const file of sources(SRC)) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/\b(\d+) \/\* (Op|LazyOp|MemoryForm|OperandKind)\.(\w+) \*\//g)) {
        seen++;
        const want = TABLES[m[2]][m[3]];
        if (want !== Number(m[1])) wrong.push(`${file.slice(SRC.length)}: ${m[0]} (${m[2]}.${m[3]} is ${want})`);
      }
    }
    expect(wrong).toEqual([]);
    expect(seen).toBeGreaterThan(200);
  });

  it("should be absent from the compiler's code generators (they run per compile: they name the constant)", () => {
    const found: string[] = [];
    for (const name of ['jit/region-source.ts', 'jit/flag-record.ts', 'jit/compilable.ts']) {
      const text = readFileSync(join(SRC, name), 'utf8');
      for (const m of text.matchAll(/\b\d+ \/\* (Op|LazyOp|MemoryForm|OperandKind)\.\w+ \*\//g))
        found.push(`${name}: ${m[0]}`);
    }
    expect(found).toEqual([]);
  });

  it('should be absent from what is written by hand in the executors and CpuState (numbered only where generated)', () => {
    const found: string[] = [];
    const files = [
      ...readdirSync(SRC).filter((f) => /^exec-.*\.ts$/.test(f) && !f.endsWith('.spec.ts')),
      'cpu-state.ts',
    ];
    for (const name of files) {
      let text = readFileSync(join(SRC, name), 'utf8');
      for (const part of GENERATED_PARTS.filter((p) => p.file === name)) {
        const { begin, end } = partBounds(text, part);
        text = text.slice(0, begin) + text.slice(end);
      }
      for (const m of text.matchAll(/\b\d+ \/\* (Op|LazyOp|MemoryForm|OperandKind)\.\w+ \*\//g))
        found.push(`${name}: ${m[0]}`);
    }
    expect(files.length).toBeGreaterThan(6);
    expect(found).toEqual([]);
  });
});
