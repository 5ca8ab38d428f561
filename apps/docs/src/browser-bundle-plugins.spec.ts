import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Rolldown } from 'vite';
import { describe, expect, it } from 'vitest';
import { nodeBuiltinShims } from './browser-bundle-plugins.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'bundle-fixtures');

async function bundle(entry: string): Promise<string> {
  const out = (await build({
    configFile: false,
    logLevel: 'silent',
    root: fixtures,
    plugins: [nodeBuiltinShims()],
    build: { write: false, minify: false, lib: { entry: join(fixtures, entry), formats: ['es'] } },
  })) as Rolldown.RolldownOutput[];
  return out[0].output.map((c) => (c.type === 'chunk' ? c.code : '')).join('\n');
}

describe(nodeBuiltinShims, () => {
  it('should drop a module needing a Node built-in the browser lacks when nothing used is in it', async () => {
    const code = await bundle('uses-browser-safe.ts');
    expect(code).not.toMatch(/["'`]node:[a-z_]+["'`]/);
    expect(code).not.toContain('AsyncLocalStorage');
    expect(code).not.toContain('realpathSync');
    // The path stand-in is there instead of node:path.
    expect(code).toContain('joined');
    expect(code).toMatch(/function join\(/);
  }, 60_000);

  it('should fail the build naming the built-in and the module when the bundle uses such a module', async () => {
    await expect(bundle('uses-node-only.ts')).rejects.toThrow(
      /needs Node built-ins a browser does not have: node:async_hooks@.*node-only\.ts, node:fs@.*node-only\.ts/,
    );
  }, 60_000);
});
