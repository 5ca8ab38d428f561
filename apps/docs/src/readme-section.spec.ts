import { describe, expect, it } from 'vitest';
import { readmeSection } from './readme-section.js';

describe(readmeSection, () => {
  it('should give the section up to the next level-2 heading, ignoring headings in code', () => {
    const md = '# t\n## Performance\nfast\n```sh\n## not a heading\n```\n### sub\nx\n## Development\nno\n';
    expect(readmeSection(md, 'Performance')).toBe('fast\n```sh\n## not a heading\n```\n### sub\nx\n');
    expect(readmeSection(md, 'Development')).toBe('no\n');
  });

  it('should say which heading is missing', () => {
    expect(() => readmeSection('# t\n', 'Performance')).toThrow("no '## Performance' heading");
  });
});
