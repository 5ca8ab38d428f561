import { describe, expect, it } from 'vitest';
import * as api from './index.js';

describe('@int3/tracer-plugins exports', () => {
  it('should expose exactly the public API', () => {
    expect(Object.keys(api).sort()).toEqual([
      'BUILTIN_TRACER_PLUGINS',
      'BpftraceError',
      'ChromeTraceStream',
      'DEBUGFS_KPROBES',
      'MAX_BUFFER_SIZE_KB',
      'OLDEST_PLUGIN_API_VERSION',
      'PLUGIN_API_VERSION',
      'PluginError',
      'PluginErrorCode',
      'PluginExitRefused',
      'TRACEFS_ROOT',
      'TRACE_JSON_VERSION',
      'TraceFs',
      'TraceFsErrno',
      'TraceFsError',
      'TraceJsonLines',
      'TracerHost',
      'TracerTokens',
      'TracerUsageError',
      'bpftraceAttachesProbes',
      'containPlugins',
      'escapeControls',
      'escapeTraceBytes',
      'exportChromeTrace',
      'formatBpftraceError',
      'globMatch',
      'jsonLine',
      'listBpftraceProbes',
      'loadTracerPlugin',
      'runTracer',
      'surrogateEscapeDecode',
      'surrogateEscapeEncode',
    ]);
  });
});
