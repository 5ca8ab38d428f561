export { bpftraceAttachesProbes } from './bpftrace/attaches-probes.js';
export { BpftraceError, formatBpftraceError } from './bpftrace/bpftrace-error.js';
export { listBpftraceProbes } from './bpftrace/list-probes.js';
export type { SourceLocation } from './bpftrace/source-location.js';
export type { FieldDescriptor, FieldKind, FormatContext, TraceEventType } from './events/trace-event-type.js';
export { globMatch } from './filter/glob-match.js';
export {
  type LoadedTracerPlugin,
  type LoadTracerPluginOptions,
  loadTracerPlugin,
  type PreparePluginContainer,
} from './plugins/load-tracer-plugin.js';
export { OLDEST_PLUGIN_API_VERSION, PLUGIN_API_VERSION } from './plugins/plugin-api-version.js';
export { type AsyncFailureSink, containPlugins, PluginExitRefused } from './plugins/plugin-containment.js';
export { PluginError, PluginErrorCode, type PluginErrorCodeValue } from './plugins/plugin-error.js';
export type { PluginCallSite, PluginGuard } from './plugins/plugin-guard.js';
export { shareHostPackages } from './plugins/share-host-packages.js';
export type { Tracer, TracerOutput, TracerReport } from './plugins/tracer.js';
export type { TracerClock } from './plugins/tracer-clock.js';
export type { TracerContext } from './plugins/tracer-context.js';
export { type PluginOwner, TracerHost, type TracerInfo } from './plugins/tracer-host.js';
export type { TracerPlugin, TracerPluginManifest } from './plugins/tracer-plugin.js';
export { TracerTokens } from './plugins/tracer-tokens.js';
export { TracerUsageError } from './plugins/tracer-usage-error.js';
export {
  type ErrorLog,
  type ErrorLogEntry,
  formatErrorLogEntry,
  TRACING_LOG_ERRS_MAX,
} from './probe-events/error-log.js';
export type { RingBuffer, RingBufferStats } from './ring-buffer/ring-buffer.js';
export type { RingBufferEvent } from './ring-buffer/ring-buffer-event.js';
export {
  DEFAULT_BUFFER_SIZE_KB,
  MAX_BUFFER_SIZE_KB,
  type TraceBuffer,
  type TraceBufferOptions,
} from './ring-buffer/trace-buffer.js';
export type { TraceIterator } from './ring-buffer/trace-iterator.js';
export { type RunTracerOptions, type RunTracerResult, runTracer } from './testing/run-tracer.js';
export { escapeControls, escapeTraceBytes } from './trace-output/escape-control.js';
export { jsonLine } from './trace-output/json-line.js';
export { surrogateEscapeDecode, surrogateEscapeEncode } from './trace-output/surrogate-escape.js';
export type {
  TraceJsonEvent,
  TraceJsonFormat,
  TraceJsonSite,
  TraceJsonValue,
} from './tracefs/probe-record-json.js';
export { DEBUGFS_KPROBES, TRACEFS_ROOT, TraceFs, type TraceFsWriteOptions } from './tracefs/trace-fs.js';
export { TraceFsErrno, type TraceFsErrnoName, TraceFsError } from './tracefs/trace-fs-error.js';
export {
  TRACE_JSON_VERSION,
  type TraceJsonEnd,
  type TraceJsonHeader,
  type TraceJsonLine,
  TraceJsonLines,
  type TraceJsonLost,
  type TraceJsonStack,
  type TraceJsonUnknown,
} from './tracefs/trace-json-lines.js';
export { BUILTIN_TRACER_PLUGINS } from './tracers/builtin-tracer-plugins.js';
export {
  type ChromeTraceArgs,
  ChromeTraceBuilder,
  type ChromeTraceHit,
  type ChromeTraceOptions,
} from './tracers/chrome-trace-builder.js';
export type { ChromeTraceDocument, ChromeTraceEvent } from './tracers/chrome-trace-event.js';
export { ChromeTraceStream } from './tracers/chrome-trace-stream.js';
export { chromeTraceDocument, exportChromeTrace } from './tracers/export-chrome-trace.js';
export type { TracerKprobes } from './view/tracer-kprobes.js';
export type { TracerMemory } from './view/tracer-memory.js';
export type { TracerRegisters } from './view/tracer-registers.js';
export type { TracerSymbols } from './view/tracer-symbols.js';
export type { TracerTask, TracerTasks } from './view/tracer-tasks.js';
export type { TracerTimers } from './view/tracer-timers.js';
export type { TracerView } from './view/tracer-view.js';
