import { ContainerModule } from 'inversify';
import type { TracerPlugin } from '../plugins/tracer-plugin.js';
import { FuncLatency } from './func-latency.js';

/**
 * The built-in funclatency tracer as a plugin, loaded like any other.
 *
 * @see bcc tools/funclatency.py
 */
export const funcLatencyPlugin: TracerPlugin = Object.freeze({
  manifest: Object.freeze({
    name: '@int3/funclatency',
    version: '0.1.0',
    apiVersion: 2,
    provides: Object.freeze(['funclatency']),
  }),
  module: new ContainerModule(({ bind }) => {
    bind('funclatency').to(FuncLatency).inSingletonScope();
  }),
});
