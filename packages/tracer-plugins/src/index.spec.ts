import { describe, expect, it } from 'vitest';
import * as api from './index.js';

describe('@int3/tracer-plugins exports', () => {
  it('should expose exactly the public API', () => {
    expect(Object.keys(api).sort()).toEqual([
      'BUILTIN_TRACER_PLUGINS',
      'BpftraceError',
      'ChromeTraceBuilder',
      'ChromeTraceStream',
      'DEBUGFS_KPROBES',
      'DEFAULT_BUFFER_SIZE_KB',
      'MAX_BUFFER_SIZE_KB',
      'OLDEST_PLUGIN_API_VERSION',
      'PLUGIN_API_VERSION',
      'PluginError',
      'PluginErrorCode',
      'PluginExitRefused',
      'TRACEFS_ROOT',
      'TRACE_JSON_VERSION',
      'TRACING_LOG_ERRS_MAX',
      'TraceFs',
      'TraceFsErrno',
      'TraceFsError',
      'TraceJsonLines',
      'TracerHost',
      'TracerTokens',
      'TracerUsageError',
      'bpftraceAttachesProbes',
      'chromeTraceDocument',
      'containPlugins',
      'escapeControls',
      'escapeTraceBytes',
      'exportChromeTrace',
      'formatBpftraceError',
      'formatErrorLogEntry',
      'globMatch',
      'jsonLine',
      'listBpftraceProbes',
      'loadTracerPlugin',
      'runTracer',
      'shareHostPackages',
      'surrogateEscapeDecode',
      'surrogateEscapeEncode',
    ]);
  });
});
