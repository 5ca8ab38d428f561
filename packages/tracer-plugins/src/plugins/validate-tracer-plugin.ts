import type { ContainerModule } from 'inversify';
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
    `${message} — a tracer plugin exports { manifest: { name, version, provides }, module: ContainerModule }`,
  );
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
  const m: TracerPluginManifest = Object.freeze({ name, version, provides: Object.freeze([...provides]) });
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
