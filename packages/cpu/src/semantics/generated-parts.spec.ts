import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { GENERATED_PARTS, partBounds, splicePart } from './generated-parts.js';
import { interpreterDispatch } from './interpreter-dispatch.js';

const SRC = fileURLToPath(new URL('..', import.meta.url));
const CPU_TS = GENERATED_PARTS.find((p) => p.file === 'cpu.ts');

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

  it('should leave no op-numbered case label in cpu.ts outside the generated dispatch', () => {
    const text = readFileSync(`${SRC}cpu.ts`, 'utf8');
    const { begin, end } = partBounds(text, CPU_TS!);
    const handWritten = text.slice(0, begin) + text.slice(end);
    expect(handWritten.match(/case \d+ \/\* Op\.\w+ \*\//g)).toBeNull();
    expect(text.slice(begin, end).match(/case \d+ \/\* Op\.\w+ \*\//g)?.length).toBeGreaterThan(40);
  });
});

describe(interpreterDispatch, () => {
  it('should number its case labels from the op table', () => {
    expect(interpreterDispatch()).toContain('case 91 /* Op.AluReg */:');
  });
});
