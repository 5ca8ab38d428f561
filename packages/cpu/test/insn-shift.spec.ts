/**
 * Native differential tests: shl, shr, sar, rol, ror, rcl, rcr by cl, imm8 and 1; shld, shrd, on random registers and flags, against the host CPU
 * (test/native/insn-runner.c, compiled at test time).
 */
import { describeInsnDifferential } from './support/insn-differential.js';
import { shiftTemplates } from './support/insn-templates.js';

describeInsnDifferential('shift', shiftTemplates());
