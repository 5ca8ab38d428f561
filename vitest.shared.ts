import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

/**
 * The test environment of the packages whose specs run the kernel (kernel, kprobes): the block
 * compiler's default threshold (1,024 visits) leaves most of their short workloads to the
 * interpreter; at 64 they run compiled too, so they check the compiler as they check the kernel.
 */
export const compilingShortWorkloads = {
  test: { env: { INT3_JIT_THRESHOLD: process.env.INT3_JIT_THRESHOLD ?? '64' } },
};

/**
 * The vitest configuration every package shares. The `@int3/source` export condition makes
 * workspace packages resolve to their TypeScript sources, so tests need no prior build.
 */
export const sharedConfig = defineConfig({
  resolve: { conditions: ['@int3/source'] },
  ssr: { resolve: { conditions: ['@int3/source', ...defaultServerConditions] } },
  test: {
    include: ['src/**/*.spec.ts', 'test/**/*.spec.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default', ['json', { outputFile: 'test-results.json' }]],
  },
});
