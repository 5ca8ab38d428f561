// examples/plugin-template as its users meet it: copied to a directory outside the workspace, its
// dependencies installed with plain npm from the packed @int3/* packages, built with tsc, and loaded by
// an int3 installed from its own tarball in another project — so the plugin's directory holds a second
// copy of every @int3 package, which int3 must not use. Packing and installing take a minute.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The packaging helper every test of the packed packages shares (the consumer test's too).
import { createConsumerProject, packPackages, WORKSPACE_ROOT } from '../../../scripts/pack-packages.mjs';
import { lines } from './int3.js';

const TEMPLATE = join(WORKSPACE_ROOT, 'examples', 'plugin-template');
const TSC = join(WORKSPACE_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

let work: string;
let plugin: string;
let cli: { dir: string; remove(): void };

/** Runs a command; fails the test with its output unless it exits 0. */
function must(cmd: string, args: string[], cwd: string): string {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout: 300_000 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** The installed int3 (from the @int3/cli tarball), run from the plugin's parent directory. */
function int3(args: string[]) {
  const bin = join(cli.dir, 'node_modules', '@int3', 'cli', 'dist', 'bin.js');
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: work, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'int3-plugin-template-'));
  const tarballs = packPackages(join(work, 'tarballs'));
  cli = createConsumerProject({ tarballs: { ...tarballs }, prefix: 'int3-plugin-host-' });
  // Step 1: copy the template as a user would (no node_modules, no build output).
  plugin = join(work, 'my-plugin');
  cpSync(TEMPLATE, plugin, {
    recursive: true,
    filter: (src) => !/[/\\](node_modules|dist)([/\\]|$)|test-results\.json$/.test(src.slice(TEMPLATE.length)),
  });
  // Step 2: its devDependencies from the tarballs instead of a registry (int3 is not published), minus
  // the test runner and the compiler (the workspace's tsc builds it), then npm install.
  const pj = JSON.parse(readFileSync(join(plugin, 'package.json'), 'utf8'));
  const local = Object.fromEntries(Object.entries(tarballs).map(([name, file]) => [name, `file:${file}`]));
  pj.devDependencies = { ...pj.devDependencies, ...local };
  delete pj.devDependencies.typescript;
  delete pj.devDependencies.vitest;
  delete pj.devDependencies['@int3/cli'];
  pj.overrides = local;
  writeFileSync(join(plugin, 'package.json'), `${JSON.stringify(pj, null, 2)}\n`);
  must('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], plugin);
  // Step 3: build it with its own tsconfig.json.
  must(process.execPath, [TSC, '-p', join(plugin, 'tsconfig.json')], plugin);
}, 600_000);

afterAll(() => {
  cli?.remove();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('examples/plugin-template, outside the workspace', () => {
  it('should hold its own copies of @int3/* (the situation int3 must not be fooled by)', () => {
    for (const name of ['kernel', 'kprobes', 'tracer-plugins']) {
      const own = JSON.parse(readFileSync(join(plugin, 'node_modules', '@int3', name, 'package.json'), 'utf8'));
      expect(own.name).toBe(`@int3/${name}`);
    }
  });

  it('should load with int3 trace --plugin <dir> and report with its arguments', () => {
    const r = int3([
      'trace',
      '-e',
      'p:open do_sys_open',
      '--plugin',
      './my-plugin',
      '--tracer',
      'callcount do_sys_open',
      '--run',
      'cat /etc/motd',
    ]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = lines(r.stdout);
    expect(out[0]).toMatch(/ open: \(do_sys_open\+0x0\/0x[0-9a-f]+\)$/);
    expect(out.slice(1)).toEqual([
      '# callcount',
      expect.stringMatching(/^COMM +do_sys_open$/),
      expect.stringMatching(/^cat +1$/),
    ]);
  });

  it("should see int3's own KprobeError class (instanceof holds), not its node_modules copy", () => {
    const r = int3(['trace', '--plugin', './my-plugin', '--tracer', 'callcount no_such_fn']);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      "int3: plugin 'int3-plugin-template': tracer 'callcount': start(no_such_fn) threw: cannot probe no_such_fn (ENOENT)\n",
    );
  });

  it('should list its tracer in int3 tracers, and load the plain-JavaScript one by path', () => {
    const listed = int3(['tracers', '--plugin', './my-plugin']);
    expect(lines(listed.stdout).pop()).toMatch(
      /^callcount +int3-plugin-template@0\.1\.0 +count the calls of a kernel function/,
    );
    const plain = int3(['trace', '--plugin', './my-plugin/js/plugin.mjs', '--run', 'fork']);
    expect(plain.stderr).toBe('');
    expect(lines(plain.stdout)).toEqual(['# forks', 'fork forked 3 times']);
  });
});
