import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

/** What one run of the built `int3` binary printed and returned. */
export interface Int3Result {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Spawns `node packages/cli/dist/bin.js ...args` (build first: `tsc -b` from the repository root). */
export function int3(args: readonly string[], input?: string): Int3Result {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000, input });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
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
