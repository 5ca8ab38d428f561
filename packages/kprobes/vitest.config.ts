import { mergeConfig } from 'vitest/config';
import { compilingShortWorkloads, sharedConfig } from '../../vitest.shared.ts';

export default mergeConfig(sharedConfig, compilingShortWorkloads);
