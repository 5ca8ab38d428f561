import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { GENERATED_PARTS, partBounds, splicePart } from './generated-parts.js';
import { interpreterDispatch } from './interpreter-dispatch.js';

const SRC = fileURLToPath(new URL('..', import.meta.url));
const CPU_TS = GENERATED_PARTS.filter((p) => p.file === 'cpu.ts');

describe('GENERATED_PARTS', () => {
  for (const part of GENERATED_PARTS) {
    it(`should be what ${part.file} holds between its markers (run scripts/gen-dispatch.mjs after editing the semantics)`, () => {
      const text = readFileSync(SRC + part.file, 'utf8');
      expect(splicePart(text, part)).toBe(text);
    });

    it(`should name every constant it writes into ${part.file} as a number (#Op.X becomes N /* Op.X */)`, () => {
      expect(part.text()).not.toMatch(/#(Op|LazyOp|MemoryForm|OperandKind)\./);
    });
  }

  it('should leave no op-numbered case label in cpu.ts outside its generated parts (the dispatch, its handlers)', () => {
    const text = readFileSync(`${SRC}cpu.ts`, 'utf8');
    let handWritten = text;
    for (const part of CPU_TS) {
      const { begin, end } = partBounds(handWritten, part);
      expect(handWritten.slice(begin, end).match(/case \d+ \/\* Op\.\w+ \*\//g)?.length).toBeGreaterThan(
        part.begin.includes('handlers') ? 0 : 40,
      );
      handWritten = handWritten.slice(0, begin) + handWritten.slice(end);
    }
    expect(CPU_TS.length).toBe(2);
    expect(handWritten.match(/case \d+ \/\* Op\.\w+ \*\//g)).toBeNull();
  });
});

describe(interpreterDispatch, () => {
  it('should number its case labels from the op table', () => {
    expect(interpreterDispatch()).toContain('case 91 /* Op.AluReg */:');
  });
});
