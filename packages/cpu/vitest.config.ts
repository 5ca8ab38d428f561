import { mergeConfig } from 'vitest/config';
import { sharedConfig } from '../../vitest.shared.ts';

// --expose-gc: page-arena.spec.ts checks that a collected page's slot is reused.
export default mergeConfig(sharedConfig, { test: { execArgv: ['--expose-gc'] } });
