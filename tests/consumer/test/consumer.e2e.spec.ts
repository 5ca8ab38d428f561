// The published packages as a user gets them: `pnpm pack` of each (its prepack build included),
// installed with plain npm into a fresh project under os.tmpdir(), outside the workspace. Each
// package README's TypeScript examples are compiled there with the TypeScript version the README
// states (skipLibCheck off) and run, and must print what the README shows; the CLI README's `$ npx …`
// commands run from the installed CLI. publint and arethetypeswrong check every tarball.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { publint } from 'publint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createConsumerProject,
  PUBLISHED_PACKAGES,
  packPackages,
  WORKSPACE_ROOT,
} from '../../../scripts/pack-packages.mjs';
import { readmeCommands, readmePrograms, statedTypeScriptVersion, trimLineEnds } from './readme-examples.js';

const DIRS = Object.keys(PUBLISHED_PACKAGES) as (keyof typeof PUBLISHED_PACKAGES)[];
const packageDir = (dir: string) => join(WORKSPACE_ROOT, 'packages', dir);
const readme = (dir: string) => readFileSync(join(packageDir(dir), 'README.md'), 'utf8');
const rootManifest = JSON.parse(readFileSync(join(WORKSPACE_ROOT, 'package.json'), 'utf8'));

/** Each README's stated minimum TypeScript, installed under an alias (`typescript-5.0`). */
const TS_VERSIONS = [...new Set(DIRS.map((d) => statedTypeScriptVersion(readme(d))).filter((v) => v !== undefined))];

/** The arethetypeswrong command line (a devDependency of this package). */
const ATTW = fileURLToPath(new URL('../node_modules/@arethetypeswrong/cli/dist/index.js', import.meta.url));

/** A small environment for the commands a user types: no vitest, pnpm or workspace variables. */
const USER_ENV = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? tmpdir(),
  TMPDIR: tmpdir(),
  NO_COLOR: '1',
};

let scratch: string;
let tarballs: Record<string, string>;
let project: { dir: string; remove(): void };

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'int3-tarballs-'));
  tarballs = packPackages(scratch);
  project = createConsumerProject({
    tarballs,
    dependencies: {
      '@types/node': rootManifest.devDependencies['@types/node'],
      ...Object.fromEntries(TS_VERSIONS.map((v) => [`typescript-${v}`, `npm:typescript@${v}`])),
    },
  });
});

afterAll(() => {
  project?.remove();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** The installed copy of a package in the consumer project: exactly the tarball's contents. */
const installed = (dir: string) => join(project.dir, 'node_modules', PUBLISHED_PACKAGES[dir as 'cpu']);

/** Every file below `root`, as `/`-separated relative paths. */
function filesBelow(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) =>
      join(e.parentPath, e.name)
        .slice(root.length + 1)
        .replaceAll('\\', '/'),
    );
}

/** Every string leaf of an `exports` value (the files its conditions point at). */
function exportTargets(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(exportTargets);
  return [];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function run(cmd: string, args: readonly string[], cwd: string) {
  const r = spawnSync(cmd, args, { cwd, env: USER_ENV, encoding: 'utf8', timeout: 240_000 });
  if (r.error) throw r.error;
  return r;
}

describe.each(DIRS)('the packed %s package', (dir) => {
  it('should hold its README, LICENSE and package.json, and no build leftovers or tests', () => {
    const files = filesBelow(installed(dir));
    expect(files).toEqual(expect.arrayContaining(['README.md', 'LICENSE', 'package.json']));
    expect(files.filter((f) => /\.tsbuildinfo$|\.spec\.ts$|\.fixture\.ts$|test-results\.json$/.test(f))).toEqual([]);
    expect(readFileSync(join(installed(dir), 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
  });

  it('should have a manifest npm accepts: no workspace: ranges, engines, repository, ./package.json exported', () => {
    const text = readFileSync(join(installed(dir), 'package.json'), 'utf8');
    const manifest = JSON.parse(text);
    expect(text).not.toContain('workspace:');
    expect(manifest.engines).toEqual({ node: '>=20.19' });
    expect(manifest.engines).toEqual(rootManifest.engines);
    expect(manifest.license).toBe('MIT');
    expect(manifest.repository).toMatchObject({ type: 'git', directory: `packages/${dir}` });
    expect(manifest.exports['./package.json']).toBe('./package.json');
  });

  it('should ship every file its exports, main, types and bin point at (the @int3/source condition too)', () => {
    const manifest = JSON.parse(readFileSync(join(installed(dir), 'package.json'), 'utf8'));
    const targets = [
      ...exportTargets(manifest.exports),
      manifest.main,
      manifest.types,
      ...exportTargets(manifest.bin ?? {}),
    ].filter((t) => t !== undefined);
    expect(targets).toContain('./src/index.ts');
    const files = filesBelow(installed(dir)).map((f) => `./${f}`);
    // A subpath pattern (`./schema/*`) must match at least one shipped file.
    const shipped = (t: string) =>
      t.includes('*')
        ? files.some((f) => new RegExp(`^${t.split('*').map(escapeRegExp).join('.+')}$`).test(f))
        : existsSync(join(installed(dir), t));
    expect(targets.filter((t) => !shipped(t))).toEqual([]);
  });

  it('should ship the sources every source map names', () => {
    const root = installed(dir);
    const maps = filesBelow(root).filter((f) => f.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(0);
    const missing = maps.flatMap((map) => {
      const { sources, sourceRoot = '' } = JSON.parse(readFileSync(join(root, map), 'utf8'));
      return (sources as string[])
        .map((s) => resolve(dirname(join(root, map)), sourceRoot, s))
        .filter((s) => !existsSync(s))
        .map((s) => `${map} -> ${s}`);
    });
    expect(missing).toEqual([]);
  });

  it('should pass publint (suggestions included, strict)', async () => {
    const data = readFileSync(tarballs[PUBLISHED_PACKAGES[dir]]);
    const tarball = data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength);
    const { messages } = await publint({ pack: { tarball }, level: 'suggestion', strict: true });
    expect(messages.map((m) => `${m.type} ${m.code} at ${m.path.join('.')} ${JSON.stringify(m.args)}`)).toEqual([]);
  });

  it('should pass arethetypeswrong for ESM consumers (node16 and bundler resolution)', () => {
    const tarball = tarballs[PUBLISHED_PACKAGES[dir]];
    // --no-definitely-typed: no look-up of @types packages on the registry.
    const r = run(
      process.execPath,
      [ATTW, tarball, '--profile', 'esm-only', '--no-definitely-typed', '--no-color'],
      scratch,
    );
    // Exit status 1 when any problem is left after the profile's ignored resolutions (CJS, node10).
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
  });
});

/** A README's examples as files of the consumer project: `readme-<dir>/example-N.ts`. */
function writeExamples(dir: string): string[] {
  const out = join(project.dir, `readme-${dir}`);
  mkdirSync(out, { recursive: true });
  return readmePrograms(readme(dir)).map((p, i) => {
    const file = join(out, `example-${i + 1}.ts`);
    writeFileSync(file, p.code);
    return file;
  });
}

const compiled = new Map<string, { status: number | null; output: string }>();

/**
 * Compiles the examples of every README that states `version`, in one program (one start of that
 * TypeScript), strict, skipLibCheck off; each example's `.js` lands beside it in `out/`.
 */
function compileExamples(version: string): { status: number | null; output: string } {
  const done = compiled.get(version);
  if (done) return done;
  const files = DIRS.filter((d) => statedTypeScriptVersion(readme(d)) === version).flatMap(writeExamples);
  const tsconfig = join(project.dir, `tsconfig.readme-${version}.json`);
  const compilerOptions = {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    skipLibCheck: false,
    types: ['node'],
    rootDir: '.',
    outDir: `out-${version}`,
  };
  writeFileSync(tsconfig, JSON.stringify({ compilerOptions, files }));
  const tsc = join(project.dir, 'node_modules', `typescript-${version}`, 'bin', 'tsc');
  const r = run(process.execPath, [tsc, '-p', tsconfig], project.dir);
  const result = { status: r.status, output: `${r.stdout}${r.stderr}` };
  compiled.set(version, result);
  return result;
}

describe.each(DIRS)('the %s README', (dir) => {
  it('should state the TypeScript version its types need, and have examples that compile with it and print what it shows', () => {
    const text = readme(dir);
    const version = statedTypeScriptVersion(text);
    expect(version, 'the README says "TypeScript ≥ X.Y"').toBeDefined();
    const programs = readmePrograms(text);
    expect(programs.length).toBeGreaterThan(0);
    // Step 1: compiled by the stated TypeScript (with the other READMEs that state the same one).
    const tsc = compileExamples(version!);
    expect(tsc.output.split('\n').filter((line) => line.includes(`readme-${dir}/`))).toEqual([]);
    expect(tsc.output).toBe('');
    expect(tsc.status).toBe(0);
    // Step 2: each compiled example, run by node in the consumer project.
    programs.forEach((p, i) => {
      const js = join(project.dir, `out-${version}`, `readme-${dir}`, `example-${i + 1}.js`);
      const r = run(process.execPath, [js], project.dir);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      if (p.expected !== undefined) expect(trimLineEnds(r.stdout)).toBe(trimLineEnds(p.expected));
    });
  });
});

describe('the installed int3 command', () => {
  const commands = readmeCommands(readme('cli'));

  it('should be shown in the CLI README tracing cat /etc/motd', () => {
    expect(commands.map((c) => c.command)).toContain(
      "npx int3 trace -e 'p:open do_sys_open filename=+0(%si):string' --run 'cat /etc/motd'",
    );
  });

  it.each(commands)('should print what the CLI README shows for $command', ({ command, expected }) => {
    const r = run('sh', ['-c', command], project.dir);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(trimLineEnds(r.stdout)).toBe(trimLineEnds(expected));
  });
});
