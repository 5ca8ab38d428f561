import { mergeConfig } from 'vitest/config';
import { sharedConfig } from '../../vitest.shared.ts';

export default mergeConfig(sharedConfig, {
  // The block compiler's default threshold (1,024 visits) leaves most of these specs' short workloads
  // to the interpreter; at 64 they run compiled too, so they check the compiler as they check the kernel.
  test: { env: { INT3_JIT_THRESHOLD: process.env.INT3_JIT_THRESHOLD ?? '64' } },
});
