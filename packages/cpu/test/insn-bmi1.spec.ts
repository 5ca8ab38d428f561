/**
 * Native differential tests: the BMI1 group (andn, bextr, blsi, blsmsk, blsr; CPUID.7.EBX bit 3 says
 * the CPU has it) on random registers and flags, against the host CPU (test/native/insn-runner.c,
 * compiled at test time).
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'vitest';
import { describeInsnDifferential } from './support/insn-differential.js';
import { bmi1Templates } from './support/insn-templates.js';

/** The truth here is the host's own BMI1 unit; a host without one has none to give. */
const hostHasBmi1 = existsSync('/proc/cpuinfo') && /^flags\s*:.*\bbmi1\b/m.test(readFileSync('/proc/cpuinfo', 'utf8'));

if (hostHasBmi1) describeInsnDifferential('bmi1', bmi1Templates());
else {
  describe('bmi1', () => {
    it.skip('should execute the BMI1 group as the host CPU does (skipped: this host has no BMI1, see /proc/cpuinfo)', () => {});
  });
}
