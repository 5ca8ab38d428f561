import { ContainerModule } from 'inversify';
import type { TracerPlugin } from '../plugins/tracer-plugin.js';
import { BpftraceTracer } from './bpftrace-tracer.js';

/**
 * The bpftrace front end as a plugin, loaded like any other.
 *
 * @see bpftrace(8)
 */
export const bpftracePlugin: TracerPlugin = Object.freeze({
  manifest: Object.freeze({
    name: '@int3/bpftrace',
    version: '0.1.0',
    apiVersion: 2,
    provides: Object.freeze(['bpftrace']),
  }),
  module: new ContainerModule(({ bind }) => {
    bind('bpftrace').to(BpftraceTracer).inSingletonScope();
  }),
});
