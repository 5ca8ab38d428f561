import { describe, expect, it } from 'vitest';
import { BUILTIN_TRACER_PLUGINS } from '../tracers/builtin-tracer-plugins.js';
import { runTracer } from './run-tracer.js';

describe(runTracer, () => {
  it('should run a plugin tracer with its arguments on the workloads and return its report and the trace', async () => {
    const r = await runTracer({
      plugin: BUILTIN_TRACER_PLUGINS[0],
      args: ['do_sys_open'],
      run: [['cat', '/etc/motd']],
      events: ['p:open do_sys_open'],
    });
    expect(r.errors).toEqual([]);
    expect(r.report.text).toMatch(/count: 1\n$/);
    expect(r.trace).toHaveLength(1);
    expect(r.trace[0]).toMatch(/ open: \(do_sys_open\+0x0/);
    expect(r.console).toMatch(/^Welcome/);
  });
});
