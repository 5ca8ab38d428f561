import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkArchitecture, formatViolation, violationKey } from './check-architecture.js';
import { KNOWN_VIOLATIONS } from './known-violations.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

describe('checkArchitecture', () => {
  it('should find the repository as the README states it: one direction, no cycles, no reaching in', () => {
    const found = checkArchitecture(ROOT);
    const known = new Set(KNOWN_VIOLATIONS);
    const keys = new Set(found.map(violationKey));
    expect(
      found.filter((v) => !known.has(violationKey(v))).map(formatViolation),
      'violations of the architecture (the rules: tests/architecture/src/check-architecture.ts)',
    ).toEqual([]);
    expect(
      KNOWN_VIOLATIONS.filter((k) => !keys.has(k)),
      'fixed: delete these entries from tests/architecture/src/known-violations.ts',
    ).toEqual([]);
  });
});
