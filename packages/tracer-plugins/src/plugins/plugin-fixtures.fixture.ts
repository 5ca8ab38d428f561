import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));

/** A file URL of this package's inversify, for fixture plugins written outside the tree. */
export const INVERSIFY_URL = pathToFileURL(
  realpathSync(join(here, '..', '..', 'node_modules', 'inversify', 'lib', 'index.js')),
).href;

const fixtureDirs: string[] = [];
// Registered when a spec file imports this module (vitest evaluates it per file): plugins are imported
// from the fixtures while that file's tests run, so the directories go when its last test is done.
afterAll(() => {
  for (const dir of fixtureDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Writes files (path → text) under a fresh temp dir, removed after the spec file's tests, and returns the dir. */
export function writePluginFixture(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'int3-plugin-'));
  fixtureDirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** A plain-JS plugin providing `name`, whose tracer runs `startBody` in start(). */
export function jsPlugin(name: string, startBody = '', extra = ''): string {
  return `import { ContainerModule } from '${INVERSIFY_URL}';
${extra}
class T { name = '${name}'; started = 0; stopped = 0;
  start(ctx) { this.started++; ${startBody} }
  stop() { this.stopped++; }
  report() { return { format: 'text', text: '${name} ok\\n' }; } }
export const manifest = { name: 'fixture-${name}', version: '1.0.0', apiVersion: 2, provides: ['${name}'] };
export const module = new ContainerModule(({ bind }) => { bind('${name}').toConstantValue(new T()); });
`;
}
