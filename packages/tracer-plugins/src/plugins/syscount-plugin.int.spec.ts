import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bootTraceFs, listedProbes, run, traceLines } from '../../test/support/tracefs-machine.js';
import { TracerHost } from './tracer-host.js';

/** The repository root, from which the example is loaded by path as the CLI's `--plugin` would. */
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const SYSCOUNT = './examples/plugin-syscount/src/index.ts';

/** syscount's rows as `pid comm syscall count`. */
function rows(text: string): string[][] {
  return text
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.trim().split(/\s+/));
}

describe('examples/plugin-syscount', () => {
  it('should load by path and report its manifest', async () => {
    const host = new TracerHost(bootTraceFs().fs);
    const manifest = await host.load(SYSCOUNT, ROOT);
    expect(manifest).toEqual({
      name: '@int3-examples/plugin-syscount',
      version: '0.1.0',
      apiVersion: 2,
      provides: ['syscount'],
    });
    expect(host.tracerNames).toEqual(['syscount']);
  });

  it('should count syscalls per task on net, by name, agreeing with a tracefs kprobe event', async () => {
    const { m, fs } = bootTraceFs();
    const host = new TracerHost(fs);
    await host.load(SYSCOUNT, ROOT);
    fs.write('kprobe_events', 'p:sc do_syscall_64 nr=%si:s64');
    fs.write('events/kprobes/sc/enable', '1');
    host.start('syscount');
    expect(run(m, ['net'])).toMatch(/received 3 messages/);
    host.stop('syscount');
    const r = rows(host.report('syscount').text);
    expect(host.report('syscount').text.split('\n')[0]).toMatch(/^PID +COMM +SYSCALL +COUNT$/);
    const server = r.filter((x) => x[2] === 'accept')[0][0];
    const client = r.filter((x) => x[2] === 'connect')[0][0];
    expect(server).not.toBe(client);
    const of = (pid: string) => Object.fromEntries(r.filter((x) => x[0] === pid).map((x) => [x[2], Number(x[3])]));
    expect(of(server)).toMatchObject({ socket: 1, bind: 1, listen: 1, accept: 1, recvmsg: 2 });
    expect(of(client)).toMatchObject({ socket: 1, connect: 1, sendmsg: 3 });
    const total = r.reduce((s, x) => s + Number(x[3]), 0);
    expect(total).toBe(traceLines(fs).length);
    expect(listedProbes(fs).filter((l) => !l.includes('do_syscall_64'))).toEqual([]);
  });

  it('should count the fork workload: three forks and waits in the parent, getpid in each child', async () => {
    const { m, fs } = bootTraceFs(2);
    const host = new TracerHost(fs);
    await host.load(SYSCOUNT, ROOT);
    host.start('syscount');
    run(m, ['fork']);
    const r = rows(host.report('syscount').text);
    const parent = r.find((x) => x[2] === 'fork');
    expect(parent?.[3]).toBe('3');
    expect(r.find((x) => x[0] === parent?.[0] && x[2] === 'wait4')?.[3]).toBe('3');
    const children = r.filter((x) => x[2] === 'getpid');
    expect(children.map((x) => x[3])).toEqual(['1', '1', '1']);
    expect(new Set(children.map((x) => x[1]))).toEqual(new Set(['fork']));
  });

  it('should not take the machine down when the same plugin is loaded twice (CONFLICT)', async () => {
    const { m, fs } = bootTraceFs();
    const host = new TracerHost(fs);
    await host.load(SYSCOUNT, ROOT);
    await expect(host.load(SYSCOUNT, ROOT)).rejects.toThrow(
      "plugin '@int3-examples/plugin-syscount': tracer 'syscount' is already provided by plugin '@int3-examples/plugin-syscount'",
    );
    expect(run(m, ['hello'])).not.toBe('');
  });
});
