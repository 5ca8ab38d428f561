/**
 * RFLAGS bits the SDM leaves undefined, by mnemonic (lowercase, as objdump prints them), so
 * differential tests can mask them. Notes: shl/shr also leave CF undefined when the count is >= the
 * operand width, and shld/shrd leave every flag undefined when the count exceeds it; masks here cover
 * the in-range cases. Flags of a zero-count shift or rotate are unchanged (defined).
 * @see Intel SDM Vol. 1 Appendix A (EFLAGS cross-reference) and each instruction's "Flags Affected"
 */
export const UNDEFINED_FLAGS: Readonly<Record<string, number>> = Object.freeze({
  and: 0x10,
  or: 0x10,
  xor: 0x10,
  test: 0x10,
  mul: 0xd4,
  imul: 0xd4,
  div: 0x8d5,
  idiv: 0x8d5,
  shl: 0x810,
  sal: 0x810,
  shr: 0x810,
  sar: 0x810,
  shld: 0x810,
  shrd: 0x810,
  rol: 0x800,
  ror: 0x800,
  rcl: 0x800,
  rcr: 0x800,
  bsf: 0x895,
  bsr: 0x895,
  tzcnt: 0x894,
  lzcnt: 0x894,
  bt: 0x894,
  bts: 0x894,
  btr: 0x894,
  btc: 0x894,
  andn: 0x14,
  bextr: 0x94,
  blsi: 0x14,
  blsmsk: 0x14,
  blsr: 0x14,
});
