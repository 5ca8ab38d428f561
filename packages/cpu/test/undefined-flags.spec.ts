/**
 * The CPU's UNDEFINED_FLAGS table against the SDM: a flag it calls undefined must be undefined for at
 * least some input of that instruction (else differential tests masking with it would hide bugs), and
 * every instruction with undefined flags must be listed. The native differential tests themselves use
 * the stricter, input-aware masks of support/insn-templates.ts.
 */
import { describe, expect, it } from 'vitest';
import { UNDEFINED_FLAGS } from '../src/index.js';
import { AF, ARITH, CF, OF, PF, SF, ZF } from './support/insn-case.js';
import { shiftUndefinedFlags } from './support/insn-templates.js';

/** The most a given mnemonic can leave undefined, over all inputs. @see Intel SDM Vol. 2, "Flags Affected" */
const SDM_MOST_UNDEFINED: Readonly<Record<string, number>> = {
  and: AF,
  or: AF,
  xor: AF,
  test: AF,
  mul: SF | ZF | AF | PF,
  imul: SF | ZF | AF | PF,
  div: ARITH,
  idiv: ARITH,
  shl: AF | OF | CF,
  sal: AF | OF | CF,
  shr: AF | OF | CF,
  sar: AF | OF,
  shld: ARITH,
  shrd: ARITH,
  rol: OF,
  ror: OF,
  rcl: OF,
  rcr: OF,
  bsf: CF | OF | SF | AF | PF,
  bsr: CF | OF | SF | AF | PF,
  tzcnt: OF | SF | AF | PF,
  lzcnt: OF | SF | AF | PF,
  bt: OF | SF | AF | PF,
  bts: OF | SF | AF | PF,
  btr: OF | SF | AF | PF,
  btc: OF | SF | AF | PF,
  andn: AF | PF,
  bextr: SF | AF | PF,
  blsi: AF | PF,
  blsmsk: AF | PF,
  blsr: AF | PF,
};

describe('UNDEFINED_FLAGS', () => {
  it('should only mask flags the SDM leaves undefined for some input', () => {
    const overreach = Object.entries(UNDEFINED_FLAGS)
      .filter(([mnemonic, mask]) => (mask & ~(SDM_MOST_UNDEFINED[mnemonic] ?? 0)) !== 0)
      .map(([mnemonic, mask]) => `${mnemonic}: 0x${mask.toString(16)}`);
    expect(overreach).toEqual([]);
  });

  it('should list every instruction that has undefined flags', () => {
    const missing = Object.keys(SDM_MOST_UNDEFINED).filter((m) => !(m in UNDEFINED_FLAGS));
    expect(missing).toEqual([]);
  });
});

describe(shiftUndefinedFlags, () => {
  it('should leave no flag undefined for a zero count and define OF for a count of one', () => {
    expect(shiftUndefinedFlags('shl', 32, 0)).toBe(0);
    expect(shiftUndefinedFlags('shl', 32, 32)).toBe(0); // masked to 0: flags unaffected
    expect(shiftUndefinedFlags('shl', 32, 1)).toBe(AF);
    expect(shiftUndefinedFlags('rol', 8, 1)).toBe(0);
  });

  it('should leave OF undefined past one and CF past the width of shl/shr', () => {
    expect(shiftUndefinedFlags('sar', 64, 2)).toBe(AF | OF);
    expect(shiftUndefinedFlags('shr', 8, 9)).toBe(AF | OF | CF);
    expect(shiftUndefinedFlags('rcr', 16, 17)).toBe(OF);
  });
});
