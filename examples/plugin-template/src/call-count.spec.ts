import { fileURLToPath } from 'node:url';
import { runTracer } from '@int3/tracer-plugins';
import { describe, expect, it } from 'vitest';
import { manifest, module } from './index.js';

describe('callcount', () => {
  it('should count do_sys_open per task, as many as the tracefs event sees', async () => {
    const r = await runTracer({
      plugin: { manifest, module },
      run: [['cat', '/etc/motd'], ['open']],
      events: ['p:open do_sys_open'],
      cpus: 2,
    });
    expect(r.errors).toEqual([]);
    const rows = r.report.text.trim().split('\n');
    expect(rows[0]).toMatch(/^COMM +do_sys_open$/);
    const total = rows.slice(1).reduce((n, row) => n + Number(row.trim().split(/\s+/).pop()), 0);
    expect(total).toBe(r.trace.length);
    expect(rows.slice(1).map((row) => row.split(/\s+/)[0])).toContain('cat');
  });

  it('should take the function as its argument and refuse two', async () => {
    const r = await runTracer({ plugin: { manifest, module }, args: ['vfs_read'], run: [['cat', '/etc/motd']] });
    expect(r.report.text).toMatch(/^COMM +vfs_read\ncat +[1-9]\d*\n$/);
    await expect(runTracer({ plugin: { manifest, module }, args: ['a', 'b'] })).rejects.toThrow(/usage: callcount/);
    await expect(runTracer({ plugin: { manifest, module }, args: ['no_such_fn'] })).rejects.toThrow(
      /start\(no_such_fn\) threw: cannot probe no_such_fn \(ENOENT\)$/,
    );
  });
});

describe('forks (js/plugin.mjs)', () => {
  it('should load the plain-JavaScript plugin by path and count the forks of the fork workload', async () => {
    const r = await runTracer({ plugin: fileURLToPath(new URL('../js/plugin.mjs', import.meta.url)), run: [['fork']] });
    expect(r.errors).toEqual([]);
    expect(r.report.text).toBe('fork forked 3 times\n');
  });
});
