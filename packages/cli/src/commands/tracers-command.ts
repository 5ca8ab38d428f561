import type { TracerHost, TracerInfo } from '@int3/tracer-plugins';
import type { Command } from 'commander';
import { CliTokens } from '../container/cli-tokens.js';
import { createCliContainer } from '../container/create-cli-container.js';
import { createTracedSession, readKernelImage } from '../tracing/traced-session.js';
import { writeOut } from '../write-out.js';

const EXAMPLE = `
Examples:
  $ int3 tracers
  $ int3 tracers --plugin ./examples/plugin-syscount
  $ int3 trace --tracer 'funclatency -u vfs_read' --run 'cat /etc/motd'`;

/**
 * Registers `int3 tracers`: every tracer a `--tracer` can start — the built-ins and those of each
 * `--plugin` — one per line with its plugin and its one-line description.
 */
export function registerTracersCommand(program: Command): void {
  program
    .command('tracers')
    .description('list the tracers --tracer can start: the built-in ones and those of each --plugin')
    .addHelpText('after', EXAMPLE)
    .action(async (_options: unknown, cmd: Command) => {
      const image = readKernelImage(undefined, 'tracers');
      const c = createCliContainer(cmd, () => createTracedSession(image, 1));
      const host = await c.getAsync<TracerHost>(CliTokens.TracerHost);
      writeOut(cmd, formatTracers(host.tracers));
    });
}

/** The table `int3 tracers` prints: TRACER, PLUGIN (`built-in` or name@version), DESCRIPTION. */
export function formatTracers(tracers: readonly TracerInfo[]): string {
  const rows = tracers.map((t) => [
    t.name,
    t.path === '<builtin>' ? 'built-in' : `${t.plugin.name}@${t.plugin.version}`,
    oneLine(t.description) || '(no description)',
  ]);
  const all = [['TRACER', 'PLUGIN', 'DESCRIPTION'], ...rows];
  const w0 = Math.max(...all.map((r) => r[0].length));
  const w1 = Math.max(...all.map((r) => r[1].length));
  return all.map((r) => `${r[0].padEnd(w0)}  ${r[1].padEnd(w1)}  ${r[2]}\n`).join('');
}

/** The first line of a description, its control characters shown as `?` (a terminal must not obey them). */
function oneLine(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is replaced
  return (text.split('\n')[0] ?? '').replace(/[\u0000-\u001f\u007f-\u009f]/g, '?').trim();
}
