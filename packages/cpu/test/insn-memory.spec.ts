/**
 * Native differential tests of memory-operand forms: ALU read-modify-write (lock too), shifts, bit
 * strings with register offsets, mul/div, moves, xchg/xadd/cmpxchg, the stack and string
 * instructions (rep, repe, repne; DF both ways), against the host CPU with a scratch page mapped at
 * the same address on both sides.
 */
import { FUZZ_RUNS } from '../src/testing/fuzz-settings.js';
import { describeInsnDifferential } from './support/insn-differential.js';
import {
  memoryAluTemplates,
  memoryBitAndMulTemplates,
  memoryMoveTemplates,
  memoryShiftTemplates,
  stackTemplates,
  stringTemplates,
} from './support/insn-memory-templates.js';

// Half the default runs per form: there are ~250 forms, and the register forms cover the arithmetic.
const RUNS = Math.ceil(FUZZ_RUNS / 2);

describeInsnDifferential(
  'memory operands',
  [...memoryAluTemplates(), ...memoryShiftTemplates(), ...memoryBitAndMulTemplates(), ...memoryMoveTemplates()],
  RUNS,
);
describeInsnDifferential('stack', stackTemplates(), RUNS);
describeInsnDifferential('strings', stringTemplates());
