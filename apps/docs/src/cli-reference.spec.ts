import { createProgram } from '@int3/cli';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { cliReference } from './cli-reference.js';

describe(cliReference, () => {
  it('should match the committed reference page (run `pnpm -F @int3/docs test -u` after changing the CLI)', async () => {
    await expect(cliReference(createProgram())).toMatchFileSnapshot('../pages/reference/cli.md');
  });

  it('should list every command with its options, defaults and help examples', () => {
    const program = new Command('tool').description('a tool');
    program
      .command('go')
      .description('goes <far>')
      .argument('<where>', 'a place')
      .option('--speed <n>', 'how fast', '2')
      .addHelpText('after', '\nExample:\n  $ tool go home');
    const page = cliReference(program);
    expect(page).toContain('### `tool go`');
    expect(page).toContain('goes &lt;far&gt;');
    expect(page).toContain('- `where`: a place');
    expect(page).toContain('- `--speed <n>`: how fast (default: `"2"`)');
    expect(page).toContain('```text\nExample:\n  $ tool go home\n```');
  });
});
