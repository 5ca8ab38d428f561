import { ContainerModule } from 'inversify';
import { Syscount } from './syscount.js';

export { Syscount, type TaskSyscalls } from './syscount.js';

/** The plugin's manifest: it provides the `syscount` tracer. */
export const manifest = Object.freeze({
  name: '@int3-examples/plugin-syscount',
  version: '0.1.0',
  apiVersion: 2,
  provides: Object.freeze(['syscount']),
});

/** Binds `syscount` to {@link Syscount}. */
export const module = new ContainerModule(({ bind }) => {
  bind('syscount').to(Syscount).inSingletonScope();
});
