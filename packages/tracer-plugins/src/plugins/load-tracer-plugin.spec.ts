import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { Container } from 'inversify';
import { describe, expect, it } from 'vitest';
import { loadTracerPlugin } from './load-tracer-plugin.js';
import { PluginError, PluginErrorCode } from './plugin-error.js';
import { INVERSIFY_URL, jsPlugin, writePluginFixture } from './plugin-fixtures.fixture.js';

/** The PluginError a load fails with. */
async function loadError(specifier: string, fromDir: string): Promise<PluginError> {
  try {
    await loadTracerPlugin(specifier, fromDir, { parent: new Container() });
  } catch (e) {
    if (e instanceof PluginError) return e;
    throw new Error(`expected a PluginError, got ${String(e)}`);
  }
  throw new Error('expected the load to fail');
}

describe(loadTracerPlugin, () => {
  it('should load a plugin by path and build the tracers it provides', async () => {
    const dir = writePluginFixture({ 'good.mjs': jsPlugin('good') });
    const loaded = await loadTracerPlugin('./good.mjs', dir, { parent: new Container() });
    expect(loaded.manifest).toEqual({ name: 'fixture-good', version: '1.0.0', apiVersion: 2, provides: ['good'] });
    expect(loaded.path).toBe(join(dir, 'good.mjs'));
    expect(loaded.tracers.get('good')?.report().text).toBe('good ok\n');
  });

  it('should load a plugin by package name from node_modules above fromDir, honouring exports', async () => {
    const dir = writePluginFixture({
      'node_modules/@acme/tracer/package.json': JSON.stringify({
        name: '@acme/tracer',
        type: 'module',
        exports: { '.': { types: './x.d.ts', import: './lib/entry.js', default: './nope.js' } },
      }),
      'node_modules/@acme/tracer/lib/entry.js': jsPlugin('acme'),
      'project/sub/.keep': '',
    });
    const loaded = await loadTracerPlugin('@acme/tracer', join(dir, 'project', 'sub'), { parent: new Container() });
    expect([...loaded.tracers.keys()]).toEqual(['acme']);
  });

  it('should resolve an exports subpath pattern (pkg/tracers/*) as Node does', async () => {
    const dir = writePluginFixture({
      'node_modules/multi/package.json': JSON.stringify({
        name: 'multi',
        type: 'module',
        exports: { './tracers/*': { import: './lib/tracers/*.js' }, './package.json': './package.json' },
      }),
      'node_modules/multi/lib/tracers/one.js': jsPlugin('one'),
      'node_modules/multi/lib/tracers/two.js': jsPlugin('two'),
    });
    for (const name of ['one', 'two']) {
      const loaded = await loadTracerPlugin(`multi/tracers/${name}`, dir, { parent: new Container() });
      expect([...loaded.tracers.keys()]).toEqual([name]);
      expect(loaded.path).toBe(join(realpathSync(dir), 'node_modules/multi/lib/tracers', `${name}.js`));
    }
    const e = await loadError('multi/nope', dir);
    expect(e.code).toBe(PluginErrorCode.NOT_FOUND);
    expect(e.message).toMatch(/^plugin 'multi\/nope': Package subpath '\.\/nope' is not defined by "exports" in /);
  });

  it('should load a directory by its package.json exports, as importing the package by name would', async () => {
    const dir = writePluginFixture({
      'p/package.json': JSON.stringify({
        name: 'dir-plugin',
        type: 'module',
        exports: { '.': { '@int3/source': './src.js', import: './dist/entry.js' } },
      }),
      'p/dist/entry.js': jsPlugin('fromdir'),
    });
    const loaded = await loadTracerPlugin('./p', dir, { parent: new Container() });
    expect([...loaded.tracers.keys()]).toEqual(['fromdir']);
  });

  it('should accept a default export holding manifest and module', async () => {
    const src = jsPlugin('dflt')
      .replace('export const manifest', 'const manifest')
      .replace('export const module', 'const module');
    const dir = writePluginFixture({ 'd.mjs': `${src}\nexport default { manifest, module };\n` });
    const loaded = await loadTracerPlugin('./d.mjs', dir, { parent: new Container() });
    expect(loaded.manifest.name).toBe('fixture-dflt');
  });

  it('should fail a missing package with NOT_FOUND naming it and saying what to do', async () => {
    const e = await loadError('int3-no-such-plugin', writePluginFixture({}));
    expect(e.code).toBe(PluginErrorCode.NOT_FOUND);
    expect(e.message).toMatch(
      /^plugin 'int3-no-such-plugin': Cannot find package 'int3-no-such-plugin' imported from .*: install it, or pass a path/,
    );
  });

  it('should fail a missing path with NOT_FOUND naming the path', async () => {
    const e = await loadError('./missing.js', '/tmp');
    expect(e.code).toBe(PluginErrorCode.NOT_FOUND);
    expect(e.message).toBe("plugin './missing.js': no such file or directory: /tmp/missing.js");
  });

  it('should fail a module without a manifest with INVALID naming the plugin', async () => {
    const dir = writePluginFixture({ 'bare.mjs': 'export const hello = 1;\n' });
    const e = await loadError('./bare.mjs', dir);
    expect(e.code).toBe(PluginErrorCode.INVALID);
    expect(e.message).toMatch(
      /^plugin '.\/bare.mjs': the module has no 'manifest' export — a tracer plugin exports \{ manifest/,
    );
  });

  it.each([
    [
      3,
      "plugin 'v': it was built for plugin API version 3, but this int3 provides plugin API version 2: use an int3 that provides version 3, or a release of the plugin built for version 2",
    ],
    [
      1,
      "plugin 'v': it was built for plugin API version 1, but this int3 provides plugin API version 2: rebuild it for version 2",
    ],
    [0, "plugin 'v': manifest.apiVersion must be a positive integer, not 0"],
    ['1', 'plugin \'v\': manifest.apiVersion must be a positive integer, not "1"'],
  ])('should refuse a manifest built for plugin API version %j, naming both versions', async (v, message) => {
    const src = jsPlugin('v')
      .replace("name: 'fixture-v'", "name: 'v'")
      .replace('apiVersion: 2', `apiVersion: ${JSON.stringify(v)}`);
    const e = await loadError('./v.mjs', writePluginFixture({ 'v.mjs': src }));
    expect(e.code).toBe(v === 3 || v === 1 ? PluginErrorCode.API_MISMATCH : PluginErrorCode.INVALID);
    expect(e.message.split(' — ')[0]).toBe(message);
  });

  it('should refuse a manifest that does not state its plugin API version', async () => {
    const src = jsPlugin('nov').replace('apiVersion: 2, ', '');
    const e = await loadError('./nov.mjs', writePluginFixture({ 'nov.mjs': src }));
    expect(e.message).toMatch(
      /^plugin 'fixture-nov': manifest.apiVersion is missing: state the plugin API version it was built for \(this int3 provides plugin API version 2\)/,
    );
  });

  it('should fail a manifest without a ContainerModule with INVALID naming the manifest', async () => {
    const dir = writePluginFixture({
      'nomod.mjs':
        "export const manifest = { name: 'nomod', version: '1', apiVersion: 2, provides: ['x'] };\nexport const module = {};\n",
    });
    const e = await loadError('./nomod.mjs', dir);
    expect(e.message).toMatch(
      /^plugin 'nomod': the module has no 'module' export that is an inversify ContainerModule/,
    );
  });

  it('should fail a bad manifest (empty provides) with INVALID', async () => {
    const dir = writePluginFixture({
      'np.mjs': `import { ContainerModule } from '${INVERSIFY_URL}';
export const manifest = { name: 'np', version: '1', apiVersion: 2, provides: [] };
export const module = new ContainerModule(() => {});\n`,
    });
    expect((await loadError('./np.mjs', dir)).message).toMatch(
      /^plugin 'np': manifest.provides must be a non-empty array/,
    );
  });

  it('should fail a module that throws when imported with IMPORT_FAILED and keep the cause', async () => {
    const dir = writePluginFixture({ 'throws.mjs': "throw new Error('kaboom at import');\n" });
    const e = await loadError('./throws.mjs', dir);
    expect(e.code).toBe(PluginErrorCode.IMPORT_FAILED);
    expect(e.message).toMatch(/^plugin '.\/throws.mjs': importing .*throws.mjs failed: kaboom at import$/);
    expect((e.cause as Error).message).toBe('kaboom at import');
  });

  it('should fail a container module that throws while loading with LOAD_FAILED', async () => {
    const dir = writePluginFixture({
      'lt.mjs': `import { ContainerModule } from '${INVERSIFY_URL}';
export const manifest = { name: 'load-thrower', version: '1', apiVersion: 2, provides: ['lt'] };
export const module = new ContainerModule(() => { throw new Error('bind failed'); });\n`,
    });
    const e = await loadError('./lt.mjs', dir);
    expect(e.code).toBe(PluginErrorCode.LOAD_FAILED);
    expect(e.message).toBe("plugin 'load-thrower': its module threw while loading: bind failed");
  });

  it('should fail a plugin that provides a name it does not bind with INVALID', async () => {
    const src = jsPlugin('a').replace("provides: ['a']", "provides: ['a', 'b']");
    const e = await loadError('./ab.mjs', writePluginFixture({ 'ab.mjs': src }));
    expect(e.message).toMatch(/^plugin 'fixture-a': manifest provides 'b' but its module binds nothing under 'b'/);
  });

  it('should fail a tracer whose constructor throws with LOAD_FAILED', async () => {
    const src = jsPlugin('ct').replace(
      'toConstantValue(new T())',
      "toDynamicValue(() => { throw new Error('ctor'); })",
    );
    const e = await loadError('./ct.mjs', writePluginFixture({ 'ct.mjs': src }));
    expect(e.code).toBe(PluginErrorCode.LOAD_FAILED);
    expect(e.message).toMatch(/^plugin 'fixture-ct': building tracer 'ct' threw: .*ctor/);
  });

  it('should fail a bound object that is not a Tracer with INVALID', async () => {
    const src = jsPlugin('nt').replace('toConstantValue(new T())', 'toConstantValue({ name: "nt" })');
    const e = await loadError('./nt.mjs', writePluginFixture({ 'nt.mjs': src }));
    expect(e.message).toMatch(/^plugin 'fixture-nt': tracer 'nt' has no start\(\) method/);
  });
});
