import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DISPATCH_BEGIN, DISPATCH_END, interpreterDispatch, spliceDispatch } from './interpreter-dispatch.js';

const CPU_TS = fileURLToPath(new URL('../cpu.ts', import.meta.url));

describe(interpreterDispatch, () => {
  it('should be what cpu.ts holds between its markers (run scripts/gen-dispatch.mjs after editing the semantics)', () => {
    const text = readFileSync(CPU_TS, 'utf8');
    expect(spliceDispatch(text)).toBe(text);
  });

  it('should leave no op-numbered case label in cpu.ts outside the generated dispatch', () => {
    const text = readFileSync(CPU_TS, 'utf8');
    const b = text.indexOf(DISPATCH_BEGIN);
    const e = text.indexOf(DISPATCH_END);
    const handWritten = text.slice(0, b) + text.slice(e);
    expect(handWritten.match(/case \d+ \/\* Op\.\w+ \*\//g)).toBeNull();
    expect(text.slice(b, e).match(/case \d+ \/\* Op\.\w+ \*\//g)?.length).toBeGreaterThan(40);
  });

  it('should name every constant it writes as a number (#Op.X becomes N /* Op.X */)', () => {
    const text = interpreterDispatch();
    expect(text).not.toMatch(/#(Op|LazyOp|MemoryForm|OperandKind)\./);
    expect(text).toContain('case 91 /* Op.AluReg */:');
  });
});
