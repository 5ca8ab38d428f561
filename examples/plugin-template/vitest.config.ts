import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.spec.ts'],
    testTimeout: 60_000,
    reporters: ['default', ['json', { outputFile: 'test-results.json' }]],
  },
});
