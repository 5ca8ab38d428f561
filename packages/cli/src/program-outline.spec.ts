import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { createProgram } from './program.js';
import { COMMAND_OUTLINE, createOutlineProgram, outlineSuffices } from './program-outline.js';

/** The top-level help of a program, at a fixed width. */
function help(program: Command): string {
  return program.configureOutput({ getOutHelpWidth: () => 100 }).helpInformation();
}

describe(createOutlineProgram, () => {
  it("should print the same top-level help as the full program, whose commands' terms and descriptions it lists", () => {
    const full = createProgram();
    expect(help(createOutlineProgram())).toBe(help(full));
    const helper = full.createHelp();
    expect(COMMAND_OUTLINE).toEqual(
      full.commands.map((c) => ({ name: c.name(), term: helper.subcommandTerm(c), description: c.description() })),
    );
  });

  it('should print the version for -V and --version', async () => {
    for (const flag of ['-V', '--version']) {
      let out = '';
      const program = createOutlineProgram().configureOutput({ writeOut: (s) => (out += s) });
      await expect(program.parseAsync(['node', 'int3', flag])).rejects.toMatchObject({ exitCode: 0 });
      expect(out).toBe('0.1.0\n');
    }
  });
});

describe(outlineSuffices, () => {
  it('should suffice for help, version and global flags alone, and not once a command or another option is named', () => {
    expect(outlineSuffices([])).toBe(true);
    expect(outlineSuffices(['-V'])).toBe(true);
    expect(outlineSuffices(['--no-color', '--help'])).toBe(true);
    expect(outlineSuffices(['--color=never', '--version'])).toBe(true);
    expect(outlineSuffices(['trace', '--help'])).toBe(false);
    expect(outlineSuffices(['--plugin', 'x', '--help'])).toBe(false);
    expect(outlineSuffices(['--color', 'never'])).toBe(false);
    expect(outlineSuffices(['help'])).toBe(false);
  });
});
