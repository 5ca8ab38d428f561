import type { Kprobe } from '@int3/kprobes';
import { describe, expect, it } from 'vitest';
import { bootTraceFs, run, traceLines } from '../../test/support/tracefs-machine.js';
import { BUILTIN_TRACER_PLUGINS } from '../tracers/builtin-tracer-plugins.js';
import type { PluginError } from './plugin-error.js';
import { PluginErrorCode } from './plugin-error.js';
import { INVERSIFY_URL, jsPlugin, writePluginFixture } from './plugin-fixtures.fixture.js';
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

/** One plugin, two tracers on do_sys_open: `good` counts hits, `bad` throws on its first. */
const TWO_TRACERS = `import { ContainerModule } from '${INVERSIFY_URL}';
class Good { name = 'good'; hits = 0;
  start(ctx) { this.k = ctx.kprobes; this.kp = { symbolName: 'do_sys_open', preHandler: () => { this.hits++; return 0; } }; ctx.kprobes.registerKprobe(this.kp); }
  stop() { this.k.unregisterKprobe(this.kp); }
  report() { return { format: 'text', text: 'good hits ' + this.hits + '\\n' }; } }
class Bad { name = 'bad';
  start(ctx) { this.k = ctx.kprobes; this.kp = { symbolName: 'do_sys_open', preHandler: () => { throw new Error('bad'); } }; ctx.kprobes.registerKprobe(this.kp); }
  stop() { this.k.unregisterKprobe(this.kp); }
  report() { return { format: 'text', text: 'bad\\n' }; } }
export const manifest = { name: 'two', version: '1.0.0', apiVersion: 2, provides: ['good', 'bad'] };
export const module = new ContainerModule(({ bind }) => { bind('good').toConstantValue(new Good()); bind('bad').toConstantValue(new Bad()); });
`;

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
    expect(s.seen[0]).toMatchObject({
      code: PluginErrorCode.HANDLER_FAILED,
      plugin: 'fixture-broken',
      tracer: 'broken',
    });
    expect(s.seen[0].message).toMatch(
      /^plugin 'fixture-broken': tracer 'broken': the (pre-handler of its kprobe at do_sys_open|return handler of its kretprobe on vfs_read) threw while the machine ran: .*boom.*; its probes are disabled$/,
    );
    expect(s.host.hasFailed('broken')).toBe(true);
    expect(s.host.hasFailed('funclatency')).toBe(false);
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
    guard.current = 't';
    guard.kprobes.registerKprobe(kp);
    guard.current = undefined;
    guard.fail('t', 'a test', new Error('x'));
    guard.fail('t', 'again', new Error('y'));
    guard.kprobes.enableKprobe(kp);
    expect(errors.map((e) => e.message)).toEqual(["plugin 'p': tracer 't': a test: x; its probes are disabled"]);
    expect(k.debugfs.list()).toMatch(/do_sys_open\+0x0 +\[DISABLED\]/);
    guard.kprobes.unregisterKprobe(kp);
    expect(k.debugfs.list()).not.toContain('do_sys_open');
  });
});

describe('PluginGuard handler slots', () => {
  /** A guard over a fresh machine, with a kprobe on do_sys_open registered by tracer `t`. */
  function guardedProbe(preHandler: () => number) {
    const { m, k, fs } = bootTraceFs();
    const errors: PluginError[] = [];
    const guard = new PluginGuard('p', k, (e) => errors.push(e));
    guard.soleTracer = 't';
    const kp: Kprobe = { symbolName: 'do_sys_open', preHandler };
    guard.kprobes.registerKprobe(kp);
    return { m, k, fs, errors, kp };
  }

  it('should guard a handler the plugin assigns after registration', () => {
    const { m, errors, kp } = guardedProbe(() => 0);
    kp.preHandler = () => {
      throw new Error('swapped in later');
    };
    run(m, ['cat', '/etc/motd']);
    expect(errors.map((e) => e.message)).toEqual([
      "plugin 'p': tracer 't': the pre-handler of its kprobe at do_sys_open threw while the machine ran: swapped in later; its probes are disabled",
    ]);
  });

  it('should refuse to let the plugin redefine a guarded slot', () => {
    const { kp } = guardedProbe(() => 0);
    expect(() => Object.defineProperty(kp, 'preHandler', { value: () => 0 })).toThrow(TypeError);
  });

  it('should run the handler the slot holds now, with the probe as this', () => {
    const hits: string[] = [];
    const { m, errors, kp } = guardedProbe(() => 0);
    kp.preHandler = function (this: unknown, p) {
      hits.push(this === kp && p === kp ? 'ok' : 'wrong this');
      return 0;
    };
    run(m, ['cat', '/etc/motd']);
    expect(errors).toEqual([]);
    expect(hits.length).toBeGreaterThan(0);
    expect(new Set(hits)).toEqual(new Set(['ok']));
  });
});

describe('PluginGuard with two tracers in one plugin', () => {
  it('should disable only the failing tracer and keep the other running', async () => {
    const { m, fs } = bootTraceFs();
    const host = new TracerHost(fs);
    const dir = writePluginFixture({ 'two.mjs': TWO_TRACERS });
    await host.load('./two.mjs', dir);
    host.start('good');
    host.start('bad');
    run(m, ['cat', '/etc/motd']);
    host.stop();
    expect(host.errors.map((e) => [e.tracer, e.code])).toEqual([['bad', PluginErrorCode.HANDLER_FAILED]]);
    expect(host.hasFailed('good')).toBe(false);
    expect(host.report('good').text).toMatch(/^good hits [1-9]\d*\n$/);
  });
});
