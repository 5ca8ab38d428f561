import { describe, expect, it } from 'vitest';
import {
  codeBlocks,
  readmeCommands,
  readmePrograms,
  statedTypeScriptVersion,
  trimLineEnds,
} from './readme-examples.js';

const README = [
  '# pkg',
  'Needs TypeScript ≥ 5.0.',
  '```sh',
  'npm install pkg',
  '```',
  '```ts',
  "console.log('a');",
  '```',
  'prints',
  '```text',
  'a',
  '```',
  '```ts',
  'const x = 1;',
  '```',
  '```console',
  '$ npx pkg one',
  'out 1',
  'out 2',
  '$ npx pkg two',
  '```',
  '',
].join('\n');

describe(codeBlocks, () => {
  it('should return every fenced block with its language', () => {
    expect(codeBlocks(README).map((b) => b.lang)).toEqual(['sh', 'ts', 'text', 'ts', 'console']);
    expect(codeBlocks(README)[0].code).toBe('npm install pkg\n');
  });

  it('should refuse an unclosed block', () => {
    expect(() => codeBlocks('```ts\nx\n')).toThrow(/unclosed ```ts block/);
  });
});

describe(readmePrograms, () => {
  it('should pair each ts block with the text block after it', () => {
    expect(readmePrograms(README)).toEqual([
      { code: "console.log('a');\n", expected: 'a\n' },
      { code: 'const x = 1;\n', expected: undefined },
    ]);
  });
});

describe(readmeCommands, () => {
  it('should split console blocks into commands and their output', () => {
    expect(readmeCommands(README)).toEqual([
      { command: 'npx pkg one', expected: 'out 1\nout 2\n' },
      { command: 'npx pkg two', expected: '' },
    ]);
  });

  it('should refuse output before the first command', () => {
    expect(() => readmeCommands('```console\nout\n```\n')).toThrow(/starts with output/);
  });
});

describe(statedTypeScriptVersion, () => {
  it('should read the version after "TypeScript ≥"', () => {
    expect(statedTypeScriptVersion(README)).toBe('5.0');
    expect(statedTypeScriptVersion('no claim')).toBeUndefined();
  });
});

describe(trimLineEnds, () => {
  it('should drop blanks at the end of every line only', () => {
    expect(trimLineEnds(' a  \n b\t\n')).toBe(' a\n b\n');
  });
});
