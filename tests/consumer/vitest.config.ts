import { mergeConfig } from 'vitest/config';
import { sharedConfig } from '../../vitest.shared.ts';

// Packing, `npm install` and a TypeScript compile per README take minutes on a loaded machine.
export default mergeConfig(sharedConfig, { test: { testTimeout: 300_000, hookTimeout: 600_000 } });
