import { describe, expect, it } from 'vitest';
import { bootTraceFs, run, traceLines } from '../../test/support/tracefs-machine.js';
import { BUILTIN_TRACER_PLUGINS } from '../tracers/builtin-tracer-plugins.js';
import type { PluginError } from './plugin-error.js';
import { PluginErrorCode } from './plugin-error.js';
import { jsPlugin, writePluginFixture } from './plugin-fixtures.fixture.js';
import { PluginGuard } from './plugin-guard.js';
import { TracerHost } from './tracer-host.js';

/** A plugin whose kprobe on do_sys_open and kretprobe on vfs_read throw from their second hit on. */
const BROKEN = jsPlugin(
  'broken',
  `this.hits = 0;
  this.kp = { symbolName: 'do_sys_open', preHandler: () => { if (++this.hits > 1) throw new Error('boom at hit ' + this.hits); return 0; } };
  ctx.kprobes.registerKprobe(this.kp);
  this.rp = { kp: { symbolName: 'vfs_read' }, handler: () => { if (++this.hits > 1) throw new Error('ret boom'); } };
  ctx.kprobes.registerKretprobe(this.rp);`,
);

/** A machine with a tracefs event and funclatency on, and optionally the broken plugin; runs cat twice. */
async function session(withBroken: boolean) {
  const { m, k, fs } = bootTraceFs();
  const host = new TracerHost(fs);
  for (const p of BUILTIN_TRACER_PLUGINS) await host.install(p);
  const seen: PluginError[] = [];
  host.errors$.subscribe((e) => seen.push(e));
  if (withBroken) {
    await host.load('./broken.mjs', writePluginFixture({ 'broken.mjs': BROKEN }));
    host.start('broken');
  }
  fs.write('kprobe_events', 'p:open do_sys_open name=+0(%si):string');
  fs.write('events/kprobes/open/enable', '1');
  host.start('funclatency', ['vfs_read']);
  const out = run(m, ['cat', '/etc/motd'], ['cat', '/etc/motd']);
  return { m, k, fs, host, seen, out };
}

describe(PluginGuard, () => {
  it('should contain a plugin handler that throws at run time, report it once and disable its probes', async () => {
    const control = await session(false);
    const s = await session(true);
    expect(s.seen).toHaveLength(1);
    expect(s.host.errors).toEqual(s.seen);
    expect(s.seen[0]).toMatchObject({ code: PluginErrorCode.HANDLER_FAILED, plugin: 'fixture-broken' });
    expect(s.seen[0].message).toMatch(
      /^plugin 'fixture-broken': the .* threw while the machine ran: .*boom.*; its probes are disabled$/,
    );
    const list = s.fs.read('/sys/kernel/debug/kprobes/list');
    expect(list).toMatch(/do_sys_open\+0x0 +\[DISABLED\]/);
    // The machine went on, and every other tracer saw exactly what it sees without the broken plugin.
    expect(s.out).toBe(control.out);
    expect(traceLines(s.fs).map((l) => l.replace(/^.*?: /, ''))).toEqual(
      traceLines(control.fs).map((l) => l.replace(/^.*?: /, '')),
    );
    expect(s.host.report('funclatency').text).toBe(control.host.report('funclatency').text);
    // Both of its probes are disabled; the tracefs event and funclatency probes at the same places are not.
    expect(list).toMatch(/vfs_read\+0x0 +\[DISABLED\]/);
    expect(list.match(/(vfs_read|do_sys_open)\+0x0 *$/gm)).toHaveLength(2);
  });

  it('should keep a failed plugin disabled when it tries to re-enable its probe', () => {
    const { k } = bootTraceFs();
    const errors: PluginError[] = [];
    const guard = new PluginGuard('p', k, (e) => errors.push(e));
    const kp = { symbolName: 'do_sys_open', preHandler: () => 0 };
    guard.kprobes.registerKprobe(kp);
    guard.fail('a test', new Error('x'));
    guard.fail('again', new Error('y'));
    guard.kprobes.enableKprobe(kp);
    expect(errors.map((e) => e.message)).toEqual([
      "plugin 'p': a test threw while the machine ran: x; its probes are disabled",
    ]);
    expect(k.list()).toMatch(/do_sys_open\+0x0 +\[DISABLED\]/);
    guard.kprobes.unregisterKprobe(kp);
    expect(k.list()).not.toContain('do_sys_open');
  });
});
