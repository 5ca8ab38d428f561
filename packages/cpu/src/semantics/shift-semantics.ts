/** Shift kinds of Op.Shift's `cc` field that the inline forms take (the others go to execShift). */
export const SHIFT_SHL = 4;
export const SHIFT_SHR = 5;
export const SHIFT_SAR = 7;

/** `a - b` as source text, folded when both are known. */
function minus(a: number, b: number | string): string {
  return typeof b === 'number' ? `${a - b}` : `(${a} - ${b})`;
}

function minusFrom(a: number | string, b: number): string {
  return typeof a === 'number' ? `${a - b}` : `(${a} - ${b})`;
}

/**
 * shl/shr/sar of the 32-bit value `l` by a count `n` in 1..31 (known, or the name of a local): the
 * result, CF (the last bit shifted out) and OF as the count-1 formula gives it, which the interpreter
 * and the compiler both record as LazyOp.Result. `cc` is the shift kind, known or the name of a local.
 * @see Intel SDM Vol. 2B (SAL/SAR/SHL/SHR)
 */
export function shiftImm32Result(
  cc: number | string,
  n: number | string,
  s: { readonly l: string; readonly rl: string; readonly cf: string; readonly of: string; readonly decl: string },
): string[] {
  const { l, rl, cf, of, decl } = s;
  const form = (kind: number): string[] => {
    if (kind === SHIFT_SHL) {
      return [
        `${decl}${rl} = ${l} << ${n};`,
        `${decl}${cf} = (${l} >>> ${minus(32, n)}) & 1;`,
        `${decl}${of} = (${rl} >>> 31) ^ ${cf};`,
      ];
    }
    if (kind === SHIFT_SHR) {
      return [
        `${decl}${rl} = (${l} >>> ${n}) | 0;`,
        `${decl}${cf} = (${l} >>> ${minusFrom(n, 1)}) & 1;`,
        `${decl}${of} = ${l} >>> 31;`,
      ];
    }
    return [`${decl}${rl} = ${l} >> ${n};`, `${decl}${cf} = (${l} >> ${minusFrom(n, 1)}) & 1;`, `${decl}${of} = 0;`];
  };
  if (typeof cc === 'number') return form(cc);
  const body = (lines: string[]) => lines.map((x) => `  ${x}`);
  return [
    `if (${cc} === ${SHIFT_SHL}) {`,
    ...body(form(SHIFT_SHL)),
    `} else if (${cc} === ${SHIFT_SHR}) {`,
    ...body(form(SHIFT_SHR)),
    '} else {',
    ...body(form(SHIFT_SAR)),
    '}',
  ];
}
