/**
 * Native differential tests: mul, imul (1, 2 and 3 operands), div, idiv (#DE included), on random registers and flags, against the host CPU
 * (test/native/insn-runner.c, compiled at test time).
 */
import { describeInsnDifferential } from './support/insn-differential.js';
import { mulDivTemplates } from './support/insn-templates.js';

describeInsnDifferential('muldiv', mulDivTemplates());
