#!/usr/bin/env node
// The README's commands on a machine that has only Node 20 and npm: get the pinned pnpm, install the
// locked dependencies (skipped when nothing changed since the last install), build what the command
// needs, and run it. `node scripts/bootstrap.mjs demo|test|bench|docs|docs:build [args...]`.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const rootPackage = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const pinned = rootPackage.packageManager.replace(/^pnpm@/, '');
const env = { ...process.env, TURBO_TELEMETRY_DISABLED: '1', DO_NOT_TRACK: '1', COREPACK_INTEGRITY_KEYS: '0' };
const quiet = { cwd: root, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] };

function run(cmd, args, options = {}) {
  const result = spawnSync(cmd, args, { cwd: root, env, stdio: 'inherit', ...options });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

function must(cmd, args, what) {
  const status = run(cmd, args);
  if (status !== 0) {
    console.error(`bootstrap: ${what} failed (exit ${status})`);
    process.exit(status);
  }
}

function pnpmVersion(bin) {
  const r = spawnSync(bin, ['--version'], quiet);
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** Finds a pnpm of exactly the pinned version, installing it when there is none. */
function ensurePnpm() {
  if (pnpmVersion('pnpm') === pinned) return 'pnpm';
  const local = join(root, '.tools', 'node_modules', '.bin', 'pnpm');
  if (existsSync(local) && pnpmVersion(local) === pinned) return local;
  console.error(`bootstrap: installing pnpm@${pinned}`);
  if (
    run('npm', ['install', '--global', '--no-fund', '--no-audit', `pnpm@${pinned}`], {
      stdio: ['ignore', 'ignore', 'inherit'],
    }) === 0 &&
    pnpmVersion('pnpm') === pinned
  ) {
    return 'pnpm';
  }
  // No global install (not root, or a pnpm of another version earlier on PATH): a project-local one.
  must(
    'npm',
    ['install', '--prefix', join(root, '.tools'), '--no-save', '--no-fund', '--no-audit', `pnpm@${pinned}`],
    'installing pnpm',
  );
  if (pnpmVersion(local) !== pinned) {
    console.error(`bootstrap: could not get pnpm@${pinned}`);
    process.exit(1);
  }
  return local;
}

/** A digest of everything that decides what `pnpm install` would do. */
function installDigest() {
  const h = createHash('sha256');
  h.update(process.version);
  for (const f of ['pnpm-lock.yaml', 'pnpm-workspace.yaml', 'package.json']) h.update(readFileSync(join(root, f)));
  return h.digest('hex');
}

function ensureInstalled(pnpm) {
  const stamp = join(root, 'node_modules', '.int3-bootstrap-stamp');
  const digest = installDigest();
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === digest) return;
  must(pnpm, ['install', '--frozen-lockfile', '--reporter=append-only'], 'pnpm install');
  writeFileSync(stamp, digest);
}

const [command = 'test', ...rest] = process.argv.slice(2);
const pnpm = ensurePnpm();
ensureInstalled(pnpm);
const turbo = join(root, 'node_modules', '.bin', 'turbo');
const tsc = join(root, 'node_modules', '.bin', 'tsc');
const biome = join(root, 'node_modules', '.bin', 'biome');

switch (command) {
  case 'demo': {
    must(tsc, ['-b'], 'build');
    process.exit(run(process.execPath, [join(root, 'packages', 'cli', 'dist', 'bin.js'), 'demo', ...rest]));
    break;
  }
  case 'test': {
    must(biome, ['check', '.'], 'lint (biome check)');
    must(tsc, ['-b'], 'typecheck and build (tsc -b)');
    // The build leaves spec files and test support out; each package's tsconfig.test.json checks them.
    for (const dir of readdirSync(join(root, 'packages'))) {
      const config = join(root, 'packages', dir, 'tsconfig.test.json');
      if (existsSync(config))
        must(tsc, ['-p', config], `typecheck the tests of packages/${dir} (tsc -p tsconfig.test.json)`);
    }
    // The docs site is built by vite (nothing of it goes through tsc -b): its TypeScript is checked here.
    must(tsc, ['-p', join(root, 'apps', 'docs', 'tsconfig.json')], 'typecheck apps/docs (tsc -p apps/docs)');
    ensureChromium();
    ensureGdb();
    const status = run(turbo, ['run', 'test', '--output-logs=errors-only', '--continue', ...rest]);
    process.exit(reportTotals(status));
    break;
  }
  case 'bench': {
    must(tsc, ['-b'], 'build');
    process.exit(run(turbo, ['run', 'bench', '--concurrency=1', '--output-logs=full', ...rest]));
    break;
  }
  case 'docs:build':
  case 'docs': {
    // The site's examples are run by the built CLI; the API pages are TypeDoc's. Extra arguments go to
    // `vitepress build` (e.g. `--base /int3/` for a site served under a path).
    must(tsc, ['-b'], 'build');
    const docs = join(root, 'apps', 'docs');
    const bin = (name) => join(docs, 'node_modules', '.bin', name);
    const inDocs = { cwd: docs };
    if (run(bin('typedoc'), [], inDocs) !== 0) process.exit(1);
    if (run(bin('vitepress'), ['build', ...rest], inDocs) !== 0) process.exit(1);
    console.log(`bootstrap: the site is in ${join(docs, 'site')}`);
    if (command === 'docs') process.exit(run(bin('vitepress'), ['preview', ...rest], inDocs));
    break;
  }
  default:
    console.error(`bootstrap: unknown command '${command}' (expected demo, test, bench, docs or docs:build)`);
    process.exit(2);
}

/** True when `name` is an executable on PATH. */
function onPath(name) {
  return spawnSync('sh', ['-c', `command -v ${name}`], quiet).status === 0;
}

/**
 * The docs' browser tests drive Debian's Chromium. When none is found (INT3_CHROMIUM or PATH) and this
 * runs as root with apt, install it; otherwise the tests themselves fail (CI=true) or skip saying why.
 */
function ensureChromium() {
  // biome-ignore lint/suspicious/noUndeclaredEnvVars: the bootstrap runs before turbo; apps/docs/turbo.json declares it for the tests that read it
  if (process.env.INT3_CHROMIUM || onPath('chromium') || onPath('chromium-browser')) return;
  if (process.getuid?.() !== 0 || !onPath('apt-get')) return;
  console.error("bootstrap: installing Debian's chromium for the browser tests (apt-get)");
  const apt = { env: { ...env, DEBIAN_FRONTEND: 'noninteractive' }, stdio: ['ignore', 'ignore', 'inherit'] };
  if (run('apt-get', ['update'], apt) !== 0 || run('apt-get', ['install', '-y', 'chromium'], apt) !== 0) {
    console.error('bootstrap: apt-get install chromium failed; the browser tests will say so');
  }
}

/**
 * The gdb stub's tests drive Debian's gdb. When none is on PATH and this runs as root with apt,
 * install it; otherwise the tests themselves fail (CI=true) or skip saying why.
 */
function ensureGdb() {
  if (onPath('gdb')) return;
  if (process.getuid?.() !== 0 || !onPath('apt-get')) return;
  console.error("bootstrap: installing Debian's gdb for the gdb stub's tests (apt-get)");
  const apt = { env: { ...env, DEBIAN_FRONTEND: 'noninteractive' }, stdio: ['ignore', 'ignore', 'inherit'] };
  if (run('apt-get', ['update'], apt) !== 0 || run('apt-get', ['install', '-y', 'gdb'], apt) !== 0) {
    console.error('bootstrap: apt-get install gdb failed; the gdb tests will say so');
  }
}

/** Sums the per-package vitest JSON reports into one closing line: `tests: N passed, N failed, N skipped`. */
function reportTotals(status) {
  const totals = { passed: 0, failed: 0, skipped: 0 };
  const failures = [];
  const dirs = [
    'packages/cpu',
    'packages/kernel',
    'packages/kprobes',
    'packages/tracer-plugins',
    'packages/cli',
    'examples/plugin-syscount',
    'apps/docs',
    'tests/architecture',
    'tests/consumer',
    'examples/plugin-template',
  ];
  for (const dir of dirs) {
    const file = join(root, dir, 'test-results.json');
    if (!existsSync(file)) continue;
    const report = JSON.parse(readFileSync(file, 'utf8'));
    totals.passed += report.numPassedTests;
    totals.failed += report.numFailedTests;
    totals.skipped += report.numPendingTests + report.numTodoTests;
    for (const suite of report.testResults ?? []) {
      for (const t of suite.assertionResults ?? []) if (t.status === 'failed') failures.push(`${dir}: ${t.fullName}`);
    }
  }
  for (const f of failures) console.log(`FAILED ${f}`);
  console.log(`tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
  return status !== 0 || totals.failed > 0 ? 1 : 0;
}
