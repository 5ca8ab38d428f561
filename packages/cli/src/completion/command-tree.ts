import type { Command, Option } from 'commander';

/** What a completion offers after an option that takes a value. */
export type ValueCompletion =
  | { readonly kind: 'none' }
  | { readonly kind: 'file' }
  | { readonly kind: 'words'; readonly words: readonly string[] };

/** One option of a command, as a completion script needs it. */
export interface OptionNode {
  /** `-e`, `--event`: every spelling. */
  readonly flags: readonly string[];
  readonly description: string;
  /** False for a switch (`--json`, `--no-color`). */
  readonly takesValue: boolean;
  readonly value: ValueCompletion;
}

/** One command: its options (the global ones on the root) and, for the root, its commands. */
export interface CommandNode {
  readonly name: string;
  readonly description: string;
  readonly options: readonly OptionNode[];
  readonly commands: readonly CommandNode[];
  /** What the first positional argument completes to: its choices, files for a `<log>`, or nothing. */
  readonly args: ValueCompletion;
}

/** Value placeholders that name a file on the host (`<file>`, `<log>`, `<vmlinux>`, `<pkg|path>`). */
const FILE_PLACEHOLDER = /^[<[](file|log|elf|vmlinux|pkg\|path|path)[>\]]$/;

/** Extra words some values complete to, beyond what commander's choices say (e.g. `--run`'s workloads). */
export type ValueHints = Readonly<Record<string, readonly string[]>>;

/**
 * The command tree of a commander program, as completion scripts are generated from it: every
 * command with its options (`-h, --help` included), a value's completion taken from the option's
 * choices, then `hints` (by long flag), then its placeholder (`<file>` and the like complete files).
 *
 * @example
 * commandTree(createProgram(), { '--run': WORKLOADS }).commands.map((c) => c.name);
 */
export function commandTree(program: Command, hints: ValueHints = {}): CommandNode {
  return node(program, hints);
}

function node(command: Command, hints: ValueHints): CommandNode {
  const help = command.createHelp();
  const options = help.visibleOptions(command).map((o) => optionNode(o, hints));
  const commands = command.commands.map((c) => node(c, hints));
  const first = command.registeredArguments[0];
  const args: ValueCompletion =
    first?.argChoices !== undefined
      ? { kind: 'words', words: first.argChoices }
      : first !== undefined && FILE_PLACEHOLDER.test(`<${first.name()}>`)
        ? { kind: 'file' }
        : { kind: 'none' };
  return { name: command.name(), description: command.description(), options, commands, args };
}

function optionNode(option: Option, hints: ValueHints): OptionNode {
  const flags = [option.short, option.long].filter((f): f is string => f !== undefined);
  const takesValue = option.required || option.optional;
  const placeholder = option.flags.split(/[ ,]+/).find((w) => /^[<[]/.test(w)) ?? '';
  let value: ValueCompletion = { kind: 'none' };
  if (option.argChoices !== undefined) value = { kind: 'words', words: option.argChoices };
  else if (option.long !== undefined && hints[option.long] !== undefined)
    value = { kind: 'words', words: hints[option.long] };
  else if (FILE_PLACEHOLDER.test(placeholder)) value = { kind: 'file' };
  return { flags, description: option.description, takesValue, value };
}

/** The root's options a command also takes: all but `-V, --version` and `-h, --help` (each has its own help). */
export function inheritedOptions(root: CommandNode): OptionNode[] {
  return root.options.filter((o) => !o.flags.some((f) => f === '--version' || f === '--help'));
}
