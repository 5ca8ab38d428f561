import { mergeConfig } from 'vitest/config';
import { sharedConfig } from '../../vitest.shared.ts';

export default mergeConfig(sharedConfig, {
  test: {
    include: ['src/**/*.spec.ts', 'test/**/*.spec.ts', 'playground/**/*.spec.ts'],
    globalSetup: ['test/global-setup.ts'],
    // The browser tests share one Chromium-heavy machine with the other packages' tests: one at a time.
    fileParallelism: false,
  },
});
