import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** apps/docs. */
export const DOCS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Where the tests build the site, and the base path they build it for (not `/`, to prove any base works). */
export const TEST_SITE_DIR = join(DOCS_DIR, 'test', '.out', 'site');
export const TEST_BASE = '/int3/';

/**
 * Builds the site as `npm run docs:build -- --base /int3/` does (TypeDoc, then VitePress, whose
 * examples run the built CLI), into {@link TEST_SITE_DIR}. Throws with the tools' output on failure.
 */
export function buildTestSite(): string {
  const bin = (name: string) => join(DOCS_DIR, 'node_modules', '.bin', name);
  if (!existsSync(join(DOCS_DIR, '..', '..', 'packages', 'cli', 'dist', 'bin.js'))) {
    throw new Error('the CLI is not built: run `npx tsc -b` first (npm test does)');
  }
  for (const [tool, args] of [
    ['typedoc', []],
    ['vitepress', ['build', '--base', TEST_BASE, '--outDir', TEST_SITE_DIR]],
  ] as const) {
    const r = spawnSync(bin(tool), [...args], { cwd: DOCS_DIR, encoding: 'utf8', timeout: 600_000 });
    if (r.status !== 0) throw new Error(`${tool} failed (${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
  }
  return TEST_SITE_DIR;
}

/** Builds the test site unless this test run already did (see global-setup.ts); returns its directory. */
export function ensureTestSite(): string {
  const run = process.env.INT3_DOCS_RUN ?? 'standalone';
  const stamp = join(TEST_SITE_DIR, '.built-by');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === run) return TEST_SITE_DIR;
  buildTestSite();
  writeFileSync(stamp, run);
  return TEST_SITE_DIR;
}
