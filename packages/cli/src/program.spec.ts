import { describe, expect, it } from 'vitest';
import { createProgram, VERSION } from './program.js';

describe(createProgram, () => {
  it('should print the version for --version', async () => {
    let out = '';
    const program = createProgram()
      .exitOverride()
      .configureOutput({ writeOut: (s) => (out += s) });
    await expect(program.parseAsync(['node', 'int3', '--version'])).rejects.toThrow(VERSION);
    expect(out.trim()).toBe(VERSION);
  });
});
