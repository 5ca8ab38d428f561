import type { Command, Option } from 'commander';

/** Text for a markdown line outside code: HTML and Vue interpolation made inert, `|` kept literal. */
function inline(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\{/g, '&#123;')
    .replace(/\}/g, '&#125;')
    .replace(/\*/g, '\\*')
    .replace(/_/g, '\\_');
}

/** A command's help after the option list (its `addHelpText('after', …)`), as `--help` prints it. */
function helpAfter(cmd: Command): string {
  let out = '';
  cmd.configureOutput({ writeOut: (s) => (out += s), writeErr: (s) => (out += s) });
  cmd.outputHelp();
  const info = cmd.helpInformation();
  const at = out.indexOf(info);
  return (at < 0 ? '' : out.slice(at + info.length)).trim();
}

function optionLine(o: Option): string {
  const defaults = o.defaultValue === undefined || o.negate ? '' : ` (default: \`${JSON.stringify(o.defaultValue)}\`)`;
  return `- \`${o.flags}\`: ${inline(o.description)}${defaults}`;
}

function usageLine(cmd: Command, path: string): string {
  return `${path} ${cmd.usage()}`.trim();
}

function section(cmd: Command, path: string, level: string): string[] {
  const lines = [`${level} \`${path}\``, '', inline(cmd.description()), '', '```text', usageLine(cmd, path), '```', ''];
  const args = cmd.registeredArguments;
  if (args.length > 0) {
    lines.push('Arguments:', '');
    for (const a of args)
      lines.push(
        `- \`${a.name()}${a.variadic ? '...' : ''}\`${a.required ? '' : ' (optional)'}: ${inline(a.description)}`,
      );
    lines.push('');
  }
  const options = cmd.options.filter((o) => !o.hidden);
  if (options.length > 0) {
    lines.push('Options:', '');
    for (const o of options) lines.push(optionLine(o));
    lines.push('');
  }
  const after = helpAfter(cmd);
  if (after !== '') lines.push('```text', after, '```', '');
  return lines;
}

/**
 * The command-line reference page, generated from the commander program itself (`createProgram()`):
 * the global options, then every command with its usage, arguments, options with their defaults, and
 * the examples its `--help` prints. A test compares it with the committed page, so it cannot go stale.
 *
 * @example
 * writeFileSync('pages/reference/cli.md', cliReference(createProgram()));
 */
export function cliReference(program: Command): string {
  const lines = [
    '# Command line',
    '',
    '<!-- Generated from the commander definitions (packages/cli/src/program.ts) by',
    '     apps/docs/src/cli-reference.ts; `pnpm -F @int3/docs test -u` rewrites it. Do not edit. -->',
    '',
    ...section(program, program.name(), '##').slice(2),
    '## Commands',
    '',
  ];
  for (const cmd of program.commands) {
    if (cmd.name() === 'help') continue;
    lines.push(...section(cmd, `${program.name()} ${cmd.name()}`, '###'));
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
