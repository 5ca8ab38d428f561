import { describe, expect, it } from 'vitest';
import { bootTraceFs, run } from '../../test/support/tracefs-machine.js';
import { PluginError, PluginErrorCode } from './plugin-error.js';
import { jsPlugin, writePluginFixture } from './plugin-fixtures.fixture.js';
import { TracerHost } from './tracer-host.js';

/** A host with one fixture plugin whose tracer's start() runs `startBody`. */
async function hostWith(name: string, startBody: string) {
  const booted = bootTraceFs();
  const host = new TracerHost(booted.fs);
  const dir = writePluginFixture({ 'p.mjs': jsPlugin(name, startBody) });
  await host.load('./p.mjs', dir);
  return { ...booted, host };
}

describe(TracerHost, () => {
  it('should start a tracer with its arguments and a view of the machine, never the Machine, Kprobes or TraceFs', async () => {
    const { m, k, fs, host } = await hostWith('ctx', 'this.seen = ctx;');
    host.start('ctx', ['a', 'b']);
    expect(host.report('ctx').text).toBe('ctx ok\n');
    expect(Object.keys(host.context).sort()).toEqual(
      ['args', 'buffer', 'clock', 'kprobes', 'memory', 'nrCpus', 'regs', 'symbols', 'tasks', 'timers'].sort(),
    );
    for (const whole of [m, k, fs]) expect(Object.values(host.context)).not.toContain(whole);
    expect(host.context.buffer).toBe(fs.buffer);
    expect(host.context.clock.now(0)).toBe(m.clock(0));
    expect(host.context.nrCpus).toBe(m.cpus.length);
  });

  it('should turn a throwing start into TRACER_FAILED naming plugin and tracer, stop it, and keep the machine up', async () => {
    const { m, host } = await hostWith('bad', "throw new Error('no probes for you');");
    let error: unknown;
    try {
      host.start('bad', ['x']);
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({
      code: PluginErrorCode.TRACER_FAILED,
      plugin: 'fixture-bad',
      message: "plugin 'fixture-bad': tracer 'bad': start(x) threw: no probes for you",
    });
    expect(run(m, ['hello'])).toMatch(/\S/);
  });

  it('should name the loaded tracers when asked for one nobody provides', async () => {
    const { host } = await hostWith('only', '');
    expect(() => host.start('funclatency')).toThrow(
      "plugin 'funclatency': no loaded plugin provides tracer 'funclatency' (loaded: only)",
    );
  });

  it('should list plugins in load order', async () => {
    const { host } = await hostWith('one', '');
    await host.load('./q.mjs', writePluginFixture({ 'q.mjs': jsPlugin('two') }));
    expect(host.plugins.map((p) => p.name)).toEqual(['fixture-one', 'fixture-two']);
    expect(host.tracerNames).toEqual(['one', 'two']);
  });

  it('should record a stop() or report() failure once per tracer, naming both, and still stop the others', async () => {
    const booted = bootTraceFs();
    const host = new TracerHost(booted.fs);
    const stopThrows = jsPlugin('s').replace('stop() { this.stopped++; }', "stop() { throw new Error('no stop'); }");
    const reportThrows = jsPlugin('r').replace('report() { return', "report() { throw 'not an Error'; return");
    const dir = writePluginFixture({ 's.mjs': stopThrows, 'r.mjs': reportThrows });
    await host.load('./s.mjs', dir);
    await host.load('./r.mjs', dir);
    host.start('s');
    host.start('r');
    expect(() => host.stop()).toThrow("plugin 'fixture-s': tracer 's': stop() threw: no stop");
    expect(() => host.report('r')).toThrow("plugin 'fixture-r': tracer 'r': report() threw: not an Error");
    expect(() => host.report('r')).toThrow(PluginError);
    expect(host.errors.map((e) => [e.plugin, e.tracer, e.code])).toEqual([
      ['fixture-s', 's', PluginErrorCode.TRACER_FAILED],
      ['fixture-r', 'r', PluginErrorCode.TRACER_FAILED],
    ]);
    expect([host.hasFailed('s'), host.hasFailed('r')]).toEqual([true, true]);
  });

  it('should drain a tracer that prints as it runs, give nothing for one that only reports, and fail a bad drain', async () => {
    const booted = bootTraceFs();
    const host = new TracerHost(booted.fs);
    const printing = jsPlugin('p').replace(
      'report() {',
      "n = 0; drain() { this.n++; return this.n === 1 ? { stdout: 'line\\n', stderr: '' } : { stdout: '', stderr: '', exit: 4 }; } report() {",
    );
    const broken = jsPlugin('b').replace('report() {', 'drain() { return 42; } report() {');
    const dir = writePluginFixture({ 'p.mjs': printing, 'b.mjs': broken, 'q.mjs': jsPlugin('q') });
    for (const f of ['./p.mjs', './b.mjs', './q.mjs']) await host.load(f, dir);
    for (const t of ['p', 'b', 'q']) host.start(t);
    expect(host.drain('p')).toEqual({ stdout: 'line\n', stderr: '' });
    expect(host.drain('p')).toEqual({ stdout: '', stderr: '', exit: 4 });
    expect(host.drain('q')).toEqual({ stdout: '', stderr: '' });
    expect(() => host.drain('b')).toThrow(
      "plugin 'fixture-b': tracer 'b': drain() failed: drain() returned no { stdout, stderr }",
    );
    expect(host.hasFailed('b')).toBe(true);
  });

  it('should list each tracer with its description, plugin and path', async () => {
    const { host } = await hostWith('d', '');
    expect(host.tracers).toEqual([
      { name: 'd', description: '', plugin: host.plugins[0], path: expect.stringMatching(/p\.mjs$/) },
    ]);
  });
});
