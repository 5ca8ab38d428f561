/**
 * Native differential tests: bsf, bsr, tzcnt, bswap, bt, bts, btr, btc, setcc, cmovcc, on random registers and flags, against the host CPU
 * (test/native/insn-runner.c, compiled at test time).
 */
import { describeInsnDifferential } from './support/insn-differential.js';
import { bitTemplates } from './support/insn-templates.js';

describeInsnDifferential('bits', bitTemplates());
