/**
 * Native differential tests: movzx, movsx, movsxd, cbw..cqo, xchg, xadd, cmpxchg, lahf, sahf, on random registers and flags, against the host CPU
 * (test/native/insn-runner.c, compiled at test time).
 */
import { describeInsnDifferential } from './support/insn-differential.js';
import { moveTemplates } from './support/insn-templates.js';

describeInsnDifferential('moves', moveTemplates());
