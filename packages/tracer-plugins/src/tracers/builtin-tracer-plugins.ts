import { bpftracePlugin } from '../bpftrace/bpftrace-plugin.js';
import type { TracerPlugin } from '../plugins/tracer-plugin.js';
import { chromeTracePlugin } from './chrome-trace-plugin.js';
import { funcLatencyPlugin } from './func-latency-plugin.js';

/** The tracers int3 ships, each a plugin like a third party's: funclatency, chrome-trace and bpftrace. */
export const BUILTIN_TRACER_PLUGINS: readonly TracerPlugin[] = Object.freeze([
  funcLatencyPlugin,
  chromeTracePlugin,
  bpftracePlugin,
]);
