import { pathToFileURL } from 'node:url';
import { Container } from 'inversify';
import { describeThrown, PluginError, PluginErrorCode } from './plugin-error.js';
import { pluginRoot } from './plugin-root.js';
import { DEFAULT_PLUGIN_CONDITIONS, resolvePluginSpecifier } from './resolve-plugin-specifier.js';
import { shareHostPackages } from './share-host-packages.js';
import type { Tracer } from './tracer.js';
import type { TracerPlugin, TracerPluginManifest } from './tracer-plugin.js';
import { validateTracer, validateTracerPlugin } from './validate-tracer-plugin.js';

/** A plugin loaded into its own child container, with the tracers it provides built. */
export interface LoadedTracerPlugin {
  readonly manifest: TracerPluginManifest;
  /** The file it was imported from (`<builtin>` for built-in tracers). */
  readonly path: string;
  /** Tracer name → tracer, for every name in `manifest.provides`. */
  readonly tracers: ReadonlyMap<string, Tracer>;
}

/** Options of {@link loadTracerPlugin}. */
export interface LoadTracerPluginOptions {
  /** The container holding the {@link TracerTokens} bindings; the plugin gets a child of it. */
  readonly parent: Container;
  /** Export conditions for package entries; default `node`, `import`, `default`. */
  readonly conditions?: readonly string[] | undefined;
  /** Adds per-plugin bindings to the plugin's child container before its module loads. */
  readonly prepare?: PreparePluginContainer;
}

/** Adds per-plugin bindings (e.g. a guarded kprobes) to a plugin's child container. */
export type PreparePluginContainer = (child: Container, manifest: TracerPluginManifest) => void;

/**
 * Loads a validated plugin into a child container of `parent` and builds each tracer it provides.
 * Step 1: load the module (its bindings stay in the child, so plugins cannot clash). Step 2: for each
 * name in `provides`, check it is bound and `get` it. Step 3: check each is a `Tracer` of that name.
 */
export async function installTracerPlugin(
  plugin: TracerPlugin,
  parent: Container,
  path = '<builtin>',
  prepare?: PreparePluginContainer,
): Promise<LoadedTracerPlugin> {
  const { manifest, module } = plugin;
  const child = new Container({ parent });
  prepare?.(child, manifest);
  try {
    await child.loadAsync(module);
  } catch (e) {
    throw new PluginError(
      PluginErrorCode.LOAD_FAILED,
      manifest.name,
      `its module threw while loading: ${describeThrown(e)}`,
      {
        cause: e,
      },
    );
  }
  const tracers = new Map<string, Tracer>();
  for (const name of manifest.provides) {
    if (!child.isCurrentBound(name)) {
      throw new PluginError(
        PluginErrorCode.INVALID,
        manifest.name,
        `manifest provides '${name}' but its module binds nothing under '${name}' (bind('${name}').to(YourTracer))`,
      );
    }
    let tracer: unknown;
    try {
      tracer = child.get(name);
    } catch (e) {
      throw new PluginError(
        PluginErrorCode.LOAD_FAILED,
        manifest.name,
        `building tracer '${name}' threw: ${describeThrown(e)}`,
        {
          cause: e,
        },
      );
    }
    tracers.set(name, validateTracer(tracer, name, manifest.name));
  }
  return { manifest, path, tracers };
}

/**
 * Loads a tracer plugin by package name or path: resolves it from `fromDir`, imports it — its imports
 * of `@int3/*` and of its `peerDependencies` resolved to int3's own copies (see
 * {@link shareHostPackages}) — validates its `manifest` and `module`, and installs it in a child
 * container of `options.parent`. Every failure is
 * a {@link PluginError} naming the plugin; nothing the plugin does escapes as another exception.
 *
 * @see kernel/module/main.c load_module() — resolve, check, link, init, each step failing cleanly
 * @example
 * const loaded = await loadTracerPlugin('@int3-examples/plugin-syscount', process.cwd(), { parent });
 * loaded.tracers.get('syscount')?.start(ctx);
 */
export async function loadTracerPlugin(
  specifier: string,
  fromDir: string,
  options: LoadTracerPluginOptions,
): Promise<LoadedTracerPlugin> {
  const path = resolvePluginSpecifier(specifier, fromDir, options.conditions ?? DEFAULT_PLUGIN_CONDITIONS);
  // Its imports of @int3/* and of its peerDependencies get int3's own copies, not ones of its own.
  shareHostPackages(pluginRoot(path));
  let mod: unknown;
  try {
    mod = await import(pathToFileURL(path).href);
  } catch (e) {
    throw new PluginError(PluginErrorCode.IMPORT_FAILED, specifier, `importing ${path} failed: ${describeThrown(e)}`, {
      cause: e,
    });
  }
  return installTracerPlugin(validateTracerPlugin(mod, specifier), options.parent, path, options.prepare);
}
