import { ContainerModule } from 'inversify';
import { CallCount } from './call-count.js';

export { CallCount } from './call-count.js';

/**
 * The manifest int3 reads: the plugin's name and version, the plugin API version it was built for
 * (a literal: int3 refuses a plugin built for a version it does not provide), and its tracers.
 */
export const manifest = Object.freeze({
  name: 'int3-plugin-template',
  version: '0.1.0',
  apiVersion: 2,
  provides: Object.freeze(['callcount']),
});

/** Binds each name in `provides` to its tracer. */
export const module = new ContainerModule(({ bind }) => {
  bind('callcount').to(CallCount).inSingletonScope();
});
