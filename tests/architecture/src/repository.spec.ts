import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkArchitecture, formatViolation } from './check-architecture.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

describe('checkArchitecture', () => {
  it('should find the repository as the README states it: one direction, no cycles, no reaching in', () => {
    expect(
      checkArchitecture(ROOT).map(formatViolation),
      'violations of the architecture (the rules: tests/architecture/src/check-architecture.ts)',
    ).toEqual([]);
  });
});
