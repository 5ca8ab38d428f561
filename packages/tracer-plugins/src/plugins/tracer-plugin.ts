import type { ContainerModule } from 'inversify';

/**
 * A plugin's identity: its name, its version, the plugin API version it was built for, and the
 * tracer names it provides. Each name in `provides` must be bound by the plugin's module (as a string
 * service identifier) to a `Tracer`.
 */
export interface TracerPluginManifest {
  readonly name: string;
  readonly version: string;
  /** The plugin API version it was built for, a literal (see `PLUGIN_API_VERSION`): e.g. `1`. */
  readonly apiVersion: number;
  readonly provides: readonly string[];
}

/**
 * What a tracer plugin module exports: `manifest` and `module` (an inversify `ContainerModule` that
 * binds each provided name to its `Tracer`). A default export holding both is accepted too.
 *
 * @example
 * export const manifest = { name: 'syscount', version: '1.0.0', apiVersion: 2, provides: ['syscount'] };
 * export const module = new ContainerModule(({ bind }) => { bind('syscount').to(Syscount); });
 */
export interface TracerPlugin {
  readonly manifest: TracerPluginManifest;
  readonly module: ContainerModule;
}
