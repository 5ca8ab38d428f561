/**
 * Native differential tests: add, adc, sub, sbb, cmp, and, or, xor, test, not, neg, inc, dec at 8/16/32/64 bits, on random registers and flags, against the host CPU
 * (test/native/insn-runner.c, compiled at test time).
 */
import { describeInsnDifferential } from './support/insn-differential.js';
import { aluTemplates } from './support/insn-templates.js';

describeInsnDifferential('alu', aluTemplates());
