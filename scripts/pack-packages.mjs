// Packs the published @int3/* packages as `pnpm pack` would publish them and installs the tarballs with
// plain npm into a project outside the workspace: what a user of the packages gets. Used by the consumer
// test (tests/consumer) and by any test that builds something against the packed packages.
//
//   import { packPackages, createConsumerProject } from '../../scripts/pack-packages.mjs';
//   const packed = packPackages(tarballDir);                     // { '@int3/cpu': '/tmp/…/int3-cpu-0.1.0.tgz', … }
//   const project = createConsumerProject({ tarballs: packed }); // npm install in a fresh os.tmpdir() project
//   …                                                            // run node/npx in project.dir
//   project.remove();
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The workspace root. */
export const WORKSPACE_ROOT = dirname(dirname(fileURLToPath(import.meta.url)));

/** The published packages, dependencies first (directory under packages/ → package name). */
export const PUBLISHED_PACKAGES = Object.freeze({
  cpu: '@int3/cpu',
  kernel: '@int3/kernel',
  kprobes: '@int3/kprobes',
  'tracer-plugins': '@int3/tracer-plugins',
  cli: '@int3/cli',
});

const quietEnv = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false' };

/** Runs a command to completion; throws with its output when it fails. */
function mustRun(cmd, args, cwd, timeout = 180_000) {
  const result = spawnSync(cmd, args, { cwd, env: quietEnv, encoding: 'utf8', timeout, maxBuffer: 64 << 20 });
  if (result.error) throw new Error(`${cmd} ${args.join(' ')}: ${result.error.message}`);
  if (result.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} in ${cwd} exited ${result.status}\n${result.stdout}\n${result.stderr}`);
  }
  return result.stdout;
}

/** The pinned pnpm: the one on PATH when it is the pinned version, else the bootstrap's project-local one. */
function pnpmCommand() {
  const pinned = JSON.parse(readFileSync(join(WORKSPACE_ROOT, 'package.json'), 'utf8')).packageManager.replace(
    /^pnpm@/,
    '',
  );
  const onPath = spawnSync('pnpm', ['--version'], { encoding: 'utf8' });
  if (onPath.status === 0 && onPath.stdout.trim() === pinned) return 'pnpm';
  const local = join(WORKSPACE_ROOT, '.tools', 'node_modules', '.bin', 'pnpm');
  if (existsSync(local)) return local;
  throw new Error(`pnpm@${pinned} not found (run 'npm test' once: the bootstrap installs it)`);
}

/**
 * Packs each package with `pnpm pack` (which runs its `prepack` build and rewrites `workspace:` ranges
 * to versions) into `destination`.
 *
 * @param {string} destination directory for the tarballs (created if missing)
 * @param {readonly string[]} [dirs] directories under packages/ (default: every published package)
 * @returns {Record<string, string>} package name → absolute tarball path
 */
export function packPackages(destination, dirs = Object.keys(PUBLISHED_PACKAGES)) {
  mkdirSync(destination, { recursive: true });
  const pnpm = pnpmCommand();
  const tarballs = {};
  for (const dir of dirs) {
    const cwd = join(WORKSPACE_ROOT, 'packages', dir);
    const manifest = JSON.parse(readFileSync(join(cwd, 'package.json'), 'utf8'));
    const out = mustRun(pnpm, ['pack', '--json', '--pack-destination', destination], cwd);
    // `--json` prints the pack summary after the prepack script's output: the last JSON object.
    const summary = JSON.parse(out.slice(out.lastIndexOf('\n{') + 1));
    const file = summary.filename.startsWith('/') ? summary.filename : join(destination, summary.filename);
    if (!existsSync(file)) throw new Error(`pnpm pack of ${manifest.name} reported ${file}, which does not exist`);
    tarballs[manifest.name] = file;
  }
  return tarballs;
}

/**
 * Creates a fresh npm project in a new directory under os.tmpdir() (outside the workspace, so nothing
 * resolves through the workspace's node_modules) and installs the tarballs and `dependencies` with
 * `npm install`. Every @int3/* dependency of a tarball is pinned to its tarball through `overrides`, so
 * npm never looks for @int3/* on a registry. Registry dependencies come from npm's cache when present.
 *
 * @param {object} options
 * @param {Record<string, string>} options.tarballs package name → tarball path (as from {@link packPackages})
 * @param {Record<string, string>} [options.dependencies] further dependencies (name → npm range)
 * @param {string} [options.prefix] prefix of the temporary directory's name
 * @returns {{ dir: string, remove(): void }} the project directory and a function that deletes it
 */
export function createConsumerProject({ tarballs, dependencies = {}, prefix = 'int3-consumer-' }) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    const local = Object.fromEntries(Object.entries(tarballs).map(([name, file]) => [name, `file:${file}`]));
    const manifest = {
      name: 'int3-consumer',
      version: '0.0.0',
      private: true,
      type: 'module',
      dependencies: { ...local, ...dependencies },
      overrides: local,
    };
    writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    mustRun('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], dir, 300_000);
    return { dir, remove };
  } catch (error) {
    remove();
    throw error;
  }
}
