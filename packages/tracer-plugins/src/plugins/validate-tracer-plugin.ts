import type { ContainerModule } from 'inversify';
import { OLDEST_PLUGIN_API_VERSION, PLUGIN_API_VERSION } from './plugin-api-version.js';
import { PluginError, PluginErrorCode } from './plugin-error.js';
import type { Tracer } from './tracer.js';
import type { TracerPlugin, TracerPluginManifest } from './tracer-plugin.js';

function isObject(v: unknown): v is Record<string, unknown> {
  return (typeof v === 'object' || typeof v === 'function') && v !== null;
}

function invalid(plugin: string, message: string): never {
  throw new PluginError(
    PluginErrorCode.INVALID,
    plugin,
    `${message} — a tracer plugin exports { manifest: { name, version, apiVersion, provides }, module: ContainerModule }`,
  );
}

/** Checks the manifest's `apiVersion` is one this int3 provides; the error names both versions. */
function checkApiVersion(name: string, apiVersion: unknown): number {
  const provided =
    OLDEST_PLUGIN_API_VERSION === PLUGIN_API_VERSION
      ? `plugin API version ${PLUGIN_API_VERSION}`
      : `plugin API versions ${OLDEST_PLUGIN_API_VERSION} to ${PLUGIN_API_VERSION}`;
  if (apiVersion === undefined) {
    invalid(
      name,
      `manifest.apiVersion is missing: state the plugin API version it was built for (this int3 provides ${provided})`,
    );
  }
  if (typeof apiVersion !== 'number' || !Number.isInteger(apiVersion) || apiVersion < 1) {
    invalid(name, `manifest.apiVersion must be a positive integer, not ${JSON.stringify(apiVersion)}`);
  }
  if (apiVersion < OLDEST_PLUGIN_API_VERSION || apiVersion > PLUGIN_API_VERSION) {
    const todo =
      apiVersion > PLUGIN_API_VERSION
        ? `use an int3 that provides version ${apiVersion}, or a release of the plugin built for version ${PLUGIN_API_VERSION}`
        : `rebuild it for version ${PLUGIN_API_VERSION}`;
    throw new PluginError(
      PluginErrorCode.API_MISMATCH,
      name,
      `it was built for plugin API version ${apiVersion}, but this int3 provides ${provided}: ${todo}`,
    );
  }
  return apiVersion;
}

/**
 * Checks an imported module has the plugin shape (`manifest` + `module`, or a default export holding
 * both) and returns it. The `ContainerModule` is recognised by shape, not `instanceof`, so a plugin
 * bundling its own copy of inversify still loads.
 *
 * @example
 * const plugin = validateTracerPlugin(await import(file), './my-plugin.js');
 */
export function validateTracerPlugin(mod: unknown, specifier: string): TracerPlugin {
  if (!isObject(mod)) invalid(specifier, 'the module is not an object');
  const src = mod.manifest === undefined && isObject(mod.default) ? mod.default : mod;
  const manifest = src.manifest;
  if (!isObject(manifest)) invalid(specifier, "the module has no 'manifest' export");
  const { name, version, provides } = manifest;
  if (typeof name !== 'string' || name.trim() === '') invalid(specifier, 'manifest.name must be a non-empty string');
  if (typeof version !== 'string' || version === '') invalid(name, 'manifest.version must be a string');
  const apiVersion = checkApiVersion(name, manifest.apiVersion);
  if (!Array.isArray(provides) || provides.length === 0) {
    invalid(name, 'manifest.provides must be a non-empty array of tracer names');
  }
  for (const p of provides) {
    if (typeof p !== 'string' || p.trim() === '') invalid(name, 'manifest.provides holds a non-string or empty name');
  }
  if (new Set(provides).size !== provides.length) invalid(name, 'manifest.provides names a tracer twice');
  const module = src.module;
  if (!isObject(module) || typeof module.load !== 'function' || typeof module.id !== 'number') {
    invalid(name, "the module has no 'module' export that is an inversify ContainerModule");
  }
  const m: TracerPluginManifest = Object.freeze({ name, version, apiVersion, provides: Object.freeze([...provides]) });
  return { manifest: m, module: module as unknown as ContainerModule };
}

/** Checks a bound object is a `Tracer` named `name`. */
export function validateTracer(tracer: unknown, name: string, plugin: string): Tracer {
  if (!isObject(tracer)) invalid(plugin, `'${name}' is bound to a ${typeof tracer}, not a Tracer`);
  for (const method of ['start', 'stop', 'report']) {
    if (typeof tracer[method] !== 'function') invalid(plugin, `tracer '${name}' has no ${method}() method`);
  }
  if (tracer.name !== name) invalid(plugin, `tracer bound as '${name}' is named '${String(tracer.name)}'`);
  return tracer as unknown as Tracer;
}
