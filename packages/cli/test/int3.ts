import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

/** What one run of the built `int3` binary printed and returned. */
export interface Int3Result {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The repository root (where `examples/` is). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Spawns `node packages/cli/dist/bin.js ...args` (build first: `tsc -b` from the repository root). */
export function int3(
  args: readonly string[],
  input?: string,
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Int3Result {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    input,
    cwd: options.cwd,
    env: options.env ?? process.env,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A running `int3` and what it has printed so far. */
export interface Int3Process {
  readonly child: ChildProcess;
  stdout: string;
  stderr: string;
  /** Resolves with the exit status (or the signal's name) and everything printed. */
  readonly done: Promise<Int3Result & { readonly signal: NodeJS.Signals | null }>;
}

/** Starts `int3 ...args` without waiting for it (to send it signals). */
export function startInt3(args: readonly string[]): Int3Process {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const p = { child, stdout: '', stderr: '' } as Int3Process;
  child.stdout!.setEncoding('utf8').on('data', (s: string) => (p.stdout += s));
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (p.stderr += s));
  (p as { done: Int3Process['done'] }).done = new Promise((resolve) =>
    child.on('close', (status, signal) => resolve({ status, signal, stdout: p.stdout, stderr: p.stderr })),
  );
  return p;
}

/** Asserts a successful run with nothing on stderr and returns its stdout. */
export function ok(args: readonly string[], input?: string): string {
  const r = int3(args, input);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout;
}

/** The lines of a text output, without the empty last one. */
export function lines(text: string): string[] {
  return text.split('\n').filter((l) => l !== '');
}
