import { WORKLOADS } from '@int3/kernel';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { createProgram } from '../program.js';
import { parseTracePlan, TRACE_FORMATS } from '../tracing/trace-plan.js';
import { commandTree, inheritedOptions } from './command-tree.js';
import { fishCompletion } from './fish-completion.js';
import { zshCompletion } from './zsh-completion.js';

const program = createProgram();
const root = commandTree(program, { '--run': WORKLOADS, '--format': TRACE_FORMATS });

/** Every option spelling of a commander command, as its help lists them. */
function flags(command: Command): string[] {
  return command
    .createHelp()
    .visibleOptions(command)
    .flatMap((o) => [o.short, o.long].filter((f): f is string => f !== undefined));
}

describe(commandTree, () => {
  it('should hold every command and every option spelling of the program', () => {
    expect(root.commands.map((c) => c.name)).toEqual(program.commands.map((c) => c.name()));
    expect(root.options.flatMap((o) => o.flags)).toEqual(flags(program));
    for (const command of program.commands) {
      const node = root.commands.find((c) => c.name === command.name())!;
      expect(node.options.flatMap((o) => o.flags)).toEqual(flags(command));
      expect(node.description).toBe(command.description());
    }
  });

  it('should take values from choices, hints and file placeholders, and every format parseTracePlan accepts', () => {
    const trace = root.commands.find((c) => c.name === 'trace')!;
    const value = (flag: string) => trace.options.find((o) => o.flags.includes(flag))?.value;
    expect(value('--run')).toEqual({ kind: 'words', words: WORKLOADS });
    expect(value('-o')).toEqual({ kind: 'file' });
    expect(value('--cpus')).toEqual({ kind: 'none' });
    expect(root.options.find((o) => o.flags.includes('--color'))?.value).toEqual({
      kind: 'words',
      words: ['auto', 'always', 'never'],
    });
    for (const format of TRACE_FORMATS) expect(parseTracePlan({ format }, 'trace').format).toBe(format);
    expect(root.commands.find((c) => c.name === 'replay')!.args).toEqual({ kind: 'file' });
  });
});

describe(zshCompletion, () => {
  it('should describe every command and give each its options and the global ones', () => {
    const script = zshCompletion(root);
    expect(script.startsWith('#compdef int3\n')).toBe(true);
    for (const c of root.commands) {
      expect(script).toContain(`    '${c.name}:`);
      const body = script.slice(script.indexOf(`        ${c.name})\n`));
      const arm = body.slice(0, body.indexOf(';;'));
      for (const flag of [...c.options, ...inheritedOptions(root)].flatMap((o) => o.flags)) {
        expect(arm).toMatch(new RegExp(`'(\\([^)]*\\))?${flag}\\[`));
      }
    }
    expect(script).toContain('--color[colours\\: auto');
    expect(script).toContain(':value:(auto always never)');
  });
});

describe(fishCompletion, () => {
  it('should offer every command, then its options once it is typed, and the global ones everywhere', () => {
    const script = fishCompletion(root);
    for (const c of root.commands) {
      expect(script).toContain(`complete -c int3 -n '__fish_use_subcommand' -a ${c.name} -d `);
      for (const o of c.options) {
        const long = o.flags.find((f) => f.startsWith('--'));
        if (long) expect(script).toContain(`-n '__fish_seen_subcommand_from ${c.name}' `);
        if (long) expect(script).toMatch(new RegExp(`__fish_seen_subcommand_from ${c.name}'.* -l ${long.slice(2)}\\b`));
      }
    }
    expect(script).toMatch(/-n 'true' -l color -x -a 'auto always never'/);
    expect(script).toMatch(/-n '__fish_use_subcommand' -s V -l version/);
  });
});
