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

/**
 * shl/shr/sar of the 64-bit value `l`/`h` by a count `n` in 1..63 (known, or the name of a local; at
 * run time the generator branches on `n < 32`): the result halves, CF (the last bit shifted out) and
 * OF as the count-1 formula gives it, recorded as LazyOp.Result. `cc` as in {@link shiftImm32Result}.
 * @see Intel SDM Vol. 2B (SAL/SAR/SHL/SHR)
 */
export function shiftImm64Result(
  cc: number | string,
  n: number | string,
  s: {
    readonly l: string;
    readonly h: string;
    readonly rl: string;
    readonly rh: string;
    readonly cf: string;
    readonly of: string;
    readonly decl: string;
  },
): string[] {
  const { l, h, rl, rh, cf, of, decl } = s;
  const known = typeof n === 'number';
  /** Bit `64 - n` (shl's last bit out) for n in 32..63: bit 32 is the high half's bit 0. */
  const topBit = known
    ? n === 32
      ? `(${h} & 1)`
      : `((${l} >>> ${64 - n}) & 1)`
    : `((${n} === 32 ? ${h} : ${l} >>> (64 - ${n})) & 1)`;
  /** Bit `n - 1` (shr/sar's last bit out) for n in 32..63: bit 31 is the low half's top bit. */
  const lowBit = known
    ? n === 32
      ? `(${l} >>> 31)`
      : `((${h} >>> ${n - 33}) & 1)`
    : `((${n} === 32 ? ${l} >>> 31 : ${h} >>> (${n} - 33)) & 1)`;
  const form = (kind: number, wide: boolean): string[] => {
    const out: string[] = [];
    if (kind === SHIFT_SHL) {
      if (!wide) {
        out.push(`${decl}${rl} = ${l} << ${n};`, `${decl}${rh} = (${h} << ${n}) | (${l} >>> ${minus(32, n)});`);
        out.push(`${decl}${cf} = (${h} >>> ${minus(32, n)}) & 1;`);
      } else out.push(`${decl}${rl} = 0;`, `${decl}${rh} = ${l} << ${minusFrom(n, 32)};`, `${decl}${cf} = ${topBit};`);
      out.push(`${decl}${of} = (${rh} >>> 31) ^ ${cf};`);
      return out;
    }
    const arith = kind === SHIFT_SAR;
    if (!wide) {
      out.push(`${decl}${rl} = (${l} >>> ${n}) | (${h} << ${minus(32, n)});`);
      out.push(`${decl}${rh} = ${arith ? `${h} >> ${n}` : `(${h} >>> ${n}) | 0`};`);
      out.push(`${decl}${cf} = (${l} >>> ${minusFrom(n, 1)}) & 1;`);
    } else {
      out.push(`${decl}${rl} = ${arith ? `${h} >> ${minusFrom(n, 32)}` : `(${h} >>> ${minusFrom(n, 32)}) | 0`};`);
      out.push(`${decl}${rh} = ${arith ? `${h} >> 31` : '0'};`, `${decl}${cf} = ${lowBit};`);
    }
    out.push(`${decl}${of} = ${arith ? '0' : `${h} >>> 31`};`);
    return out;
  };
  const body = (lines: string[]) => lines.map((x) => `  ${x}`);
  const sized = (kind: number): string[] => {
    if (typeof n === 'number') return form(kind, n >= 32);
    return [`if (${n} < 32) {`, ...body(form(kind, false)), '} else {', ...body(form(kind, true)), '}'];
  };
  if (typeof cc === 'number') return sized(cc);
  return [
    `if (${cc} === ${SHIFT_SHL}) {`,
    ...body(sized(SHIFT_SHL)),
    `} else if (${cc} === ${SHIFT_SHR}) {`,
    ...body(sized(SHIFT_SHR)),
    '} else {',
    ...body(sized(SHIFT_SAR)),
    '}',
  ];
}

/**
 * shl/shr/sar of the 8/16-bit value `l` (zero-extended) by a count `n` in 1..31 (the count is masked
 * to 5 bits below 64 bits, so it may pass the width): the result, CF (the last bit shifted out, 0 once
 * a left shift passes the width) and OF as the count-1 formula gives it. `size` is known or the name
 * of a local; `mask` its value mask and `sext` `l` sign-extended (for sar), as source text.
 * @see Intel SDM Vol. 2B (SAL/SAR/SHL/SHR)
 */
export function shiftNarrowResult(
  cc: number,
  n: string,
  s: {
    readonly size: string;
    readonly l: string;
    readonly mask: string;
    readonly sext: string;
    readonly rl: string;
    readonly cf: string;
    readonly of: string;
    readonly decl: string;
  },
): string[] {
  const { size, l, mask, rl, cf, of, decl } = s;
  if (cc === SHIFT_SHL) {
    return [
      `${decl}${rl} = (${l} << ${n}) & ${mask};`,
      `${decl}${cf} = ${n} <= ${size} * 8 ? (${l} >>> (${size} * 8 - ${n})) & 1 : 0;`,
      `${decl}${of} = msb(${rl}, 0, ${size}) ^ ${cf};`,
    ];
  }
  if (cc === SHIFT_SHR) {
    return [
      `${decl}${rl} = (${l} >>> ${n}) & ${mask};`,
      `${decl}${cf} = (${l} >>> (${n} - 1)) & 1;`,
      `${decl}${of} = msb(${l}, 0, ${size});`,
    ];
  }
  return [
    `${decl}${rl} = (${s.sext} >> ${n}) & ${mask};`,
    `${decl}${cf} = (${s.sext} >> (${n} - 1)) & 1;`,
    `${decl}${of} = 0;`,
  ];
}
