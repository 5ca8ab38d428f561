import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The parts of markdown-it this plugin uses (VitePress's instance). */
export interface FenceHost {
  readonly renderer: {
    rules: {
      fence?: FenceRule | undefined;
    };
  };
}

/** markdown-it's fence rule (a method type: its parameters compare bivariantly, so its Token[] rule fits). */
type FenceRule = {
  bivariant(tokens: FenceToken[], idx: number, options: unknown, env: unknown, self: unknown): string;
}['bivariant'];

/** A fenced block as markdown-it hands it to the renderer. */
export interface FenceToken {
  info: string;
  content: string;
}

/** One `$ command` of an `int3` block with what it printed (stdout and stderr, interleaved). */
export interface ExampleRun {
  readonly command: string;
  readonly output: string;
  readonly status: number;
}

/**
 * How the examples are run: the built CLI's `bin.js`, the symbolic links made in each block's working
 * directory (name to target, e.g. `modules` to the kernel's modules), how long one command may take.
 */
export interface ExampleRunnerOptions {
  readonly bin: string;
  readonly links?: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
}

/**
 * Runs the commands of an `int3` fenced block with the built CLI, as a reader would type them in a
 * shell: each line starting with `$ ` begins a command, the lines after it (a heredoc's body) belong to
 * it. Every block gets a fresh working directory, so `int3 record -o run.int3log` then `int3 replay
 * run.int3log` work; `int3` on PATH is the built CLI, and the links name repository files (`insmod
 * modules/hello.ko`). Output goes through no terminal (NO_COLOR).
 * A command that fails when the block is not marked `fails`, or one that times out, is an error: the
 * build stops rather than publish an example that no longer works.
 *
 * @example
 * const runs = runExampleBlock('$ int3 syms do_sys_*\n', false, { bin: 'packages/cli/dist/bin.js' });
 */
export function runExampleBlock(block: string, mayFail: boolean, options: ExampleRunnerOptions): ExampleRun[] {
  if (!existsSync(options.bin)) {
    throw new Error(`int3 examples: the CLI is not built (${options.bin} is missing): run 'npx tsc -b' first`);
  }
  const cwd = mkdtempSync(join(tmpdir(), 'int3-docs-'));
  try {
    const shims = join(cwd, '.bin');
    mkdirSync(shims);
    const shim = join(shims, 'int3');
    writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${options.bin}" "$@"\n`);
    chmodSync(shim, 0o755);
    for (const [name, target] of Object.entries(options.links ?? {})) symlinkSync(target, join(cwd, name));
    const env = { ...process.env, PATH: `${shims}:${process.env.PATH ?? ''}`, NO_COLOR: '1', COLUMNS: '100' };
    const runs: ExampleRun[] = [];
    for (const command of splitCommands(block)) {
      const r = spawnSync('/bin/sh', ['-c', `{\n${command}\n} 2>&1`], {
        cwd,
        env,
        encoding: 'utf8',
        timeout: options.timeoutMs ?? 120_000,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      if (r.error || r.status === null) {
        throw new Error(`int3 examples: '${firstLine(command)}' did not finish: ${r.error?.message ?? r.signal}`);
      }
      if (r.status !== 0 && !mayFail) {
        throw new Error(`int3 examples: '${firstLine(command)}' exited ${r.status}:\n${r.stdout}`);
      }
      runs.push({ command, output: r.stdout, status: r.status });
    }
    return runs;
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

/** The block's commands: a line starting with `$ ` starts one; other lines continue it. */
export function splitCommands(block: string): string[] {
  const commands: string[] = [];
  for (const line of block.replace(/\n$/, '').split('\n')) {
    if (line.startsWith('$ ')) commands.push(line.slice(2));
    else if (commands.length > 0) commands[commands.length - 1] += `\n${line}`;
    else if (line.trim() !== '') throw new Error(`int3 examples: a block must start with '$ ': '${line}'`);
  }
  return commands;
}

/** The transcript shown on the page: each command after `$ `, then its output. */
export function formatTranscript(runs: readonly ExampleRun[]): string {
  return runs.map((r) => `$ ${r.command}\n${r.output}`).join('');
}

function firstLine(command: string): string {
  return command.split('\n')[0];
}

/**
 * A markdown-it plugin: a fenced block whose info string is `int3` (or `int3 fails`) is run at build
 * time by {@link runExampleBlock} and rendered as a `console` block of the transcript. Identical blocks
 * run once per build.
 */
export function int3Examples(md: FenceHost, options: ExampleRunnerOptions): void {
  const fence = md.renderer.rules.fence;
  if (fence === undefined) throw new Error('int3 examples: markdown-it has no fence renderer');
  const cache = new Map<string, string>();
  md.renderer.rules.fence = (tokens, idx, opts, env, self) => {
    const token = tokens[idx];
    const [lang, ...flags] = token.info.trim().split(/\s+/);
    if (lang === 'int3') {
      const key = `${flags.join(' ')}\n${token.content}`;
      let transcript = cache.get(key);
      if (transcript === undefined) {
        transcript = formatTranscript(runExampleBlock(token.content, flags.includes('fails'), options));
        cache.set(key, transcript);
      }
      token.info = 'console';
      token.content = transcript;
    }
    return fence(tokens, idx, opts, env, self);
  };
}
