import { describe, expect, it } from 'vitest';
import * as api from './index.js';

describe('@int3/tracer-plugins exports', () => {
  it('should expose exactly the public API', () => {
    expect(Object.keys(api).sort()).toEqual([
      'BUILTIN_TRACER_PLUGINS',
      'DEBUGFS_KPROBES',
      'OLDEST_PLUGIN_API_VERSION',
      'PLUGIN_API_VERSION',
      'PluginError',
      'PluginErrorCode',
      'TRACEFS_ROOT',
      'TraceFs',
      'TraceFsErrno',
      'TraceFsError',
      'TracerHost',
      'TracerTokens',
      'exportChromeTrace',
      'exportTraceJson',
      'loadTracerPlugin',
    ]);
  });
});
