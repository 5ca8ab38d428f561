import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

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
