import { ContainerModule } from 'inversify';
import type { TracerPlugin } from '../plugins/tracer-plugin.js';
import { ChromeTrace } from './chrome-trace.js';

/** The built-in chrome-trace tracer as a plugin. */
export const chromeTracePlugin: TracerPlugin = Object.freeze({
  manifest: Object.freeze({
    name: '@int3/chrome-trace',
    version: '0.1.0',
    apiVersion: 2,
    provides: Object.freeze(['chrome-trace']),
  }),
  module: new ContainerModule(({ bind }) => {
    bind('chrome-trace').to(ChromeTrace).inSingletonScope();
  }),
});
