import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sampleElfUrl } from './sample-elf.js';

describe(sampleElfUrl, () => {
  it('should locate sample/sample.elf of this package', () => {
    const path = fileURLToPath(sampleElfUrl());
    expect(path).toMatch(/[/\\]cpu[/\\]sample[/\\]sample\.elf$/);
    expect(existsSync(path)).toBe(true);
  });

  it('should give every caller its own URL', () => {
    const url = sampleElfUrl();
    url.pathname = '/elsewhere';
    expect(sampleElfUrl().pathname).toMatch(/sample\.elf$/);
  });
});
