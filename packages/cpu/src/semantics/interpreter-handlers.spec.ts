import { describe, expect, it } from 'vitest';
import { IN_LOOP, SEQUENTIAL } from './handler-result.js';
import { dispatchSwitch } from './interpreter-dispatch.js';
import { interpreterHandlers } from './interpreter-handlers.js';

/** The op numbers a switch's case labels name. */
function labels(text: string): number[] {
  return [...text.matchAll(/case (\d+) \/\* Op\.\w+ \*\//g)].map((m) => Number(m[1]));
}

describe(interpreterHandlers, () => {
  it("should give every op the dispatch switches on an entry of the table (the loop's own ops, IN_LOOP)", () => {
    const table = interpreterHandlers();
    const ops = labels(
      dispatchSwitch()
        .split('\n')
        .filter((l) => /^ {2}case /.test(l))
        .join('\n'),
    );
    expect(ops.length).toBeGreaterThan(40);
    for (const op of ops) expect(table).toMatch(new RegExp(`t\\[${op}\\] = Cpu\\.(op\\w+|inLoop);`));
    expect(table).toContain('t[1] = Cpu.inLoop;');
    expect(table).toContain('t[95] = Cpu.inLoop;');
    expect(table).toContain(`return ${IN_LOOP};`);
    expect(table).toContain('Array.from({ length: 256 }, (): Handler => Cpu.opRare);');
  });

  it("should keep a case's statements, with `this` the handler's cpu argument", () => {
    const table = interpreterHandlers(
      [
        'switch (i.op) {',
        '  case 37 /* Op.Jmp */:',
        '    this.ripLo = i.tl;',
        '    seq = false;',
        '    break;',
        '  case 2 /* Op.Nop */:',
        '    break;',
        '  default:',
        '    exit = execRare(this, i);',
        '    seq = false;',
        '    break;',
        '}',
      ].join('\n'),
    );
    expect(table).toContain('private static opJmp(cpu: Cpu, i: Insn): number {');
    expect(table).toContain('cpu.ripLo = i.tl;');
    expect(table).toContain(`return seq ? ${SEQUENTIAL} : 0;`);
    // A case that reads neither argument names them as unused.
    expect(table).toContain('private static opNop(_cpu: Cpu, _i: Insn): number {');
    expect(table).toContain(`    return ${SEQUENTIAL};`);
    expect(table).toContain('exit = execRare(cpu, i);');
    expect(table).toContain('return seq ? -1 : exit;');
    expect(table).toContain('t[37] = Cpu.opJmp;');
  });

  it("should refuse a case that uses the run loop's locals or control flow", () => {
    const withCase = (body: string) =>
      ['switch (i.op) {', '  case 37 /* Op.Jmp */:', `    ${body}`, '  default:', '    break;', '}'].join('\n');
    expect(() => interpreterHandlers(withCase('left = 0;'))).toThrow(/uses the loop's left/);
    expect(() => interpreterHandlers(withCase('continue;'))).toThrow(/uses the loop's continue/);
    expect(() => interpreterHandlers(withCase('return this.gateExit;'))).toThrow(/uses the loop's return/);
    // Property names and comments are not the loop's.
    expect(() => interpreterHandlers(withCase('this.left = 0; // left as it was'))).not.toThrow();
  });

  it('should refuse a case that exits on its sequential path (the table could not say so)', () => {
    const text = (body: string[]) => ['switch (i.op) {', '  default:', ...body.map((l) => `    ${l}`), '}'].join('\n');
    expect(() => interpreterHandlers(text(['exit = execRare(this, i);', 'break;']))).toThrow(
      /exits on its sequential path/,
    );
    // Also when another path of the case leaves it.
    expect(() =>
      interpreterHandlers(text(['if (i.size === 8) seq = false;', 'exit = execRare(this, i);', 'break;'])),
    ).toThrow(/exits on its sequential path/);
    expect(() => interpreterHandlers(text(['exit = execRare(this, i);', 'seq = false;', 'break;']))).not.toThrow();
  });
});
