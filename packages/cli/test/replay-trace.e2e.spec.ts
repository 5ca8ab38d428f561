// replayTrace, the replay command without plugins (what the docs playground runs in the browser),
// against the built `int3 replay` on the same logs: the same stdout, stderr and exit status.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Interrupt } from '../src/runtime/interrupt.js';
import { tempDir } from '../src/temp-dir.fixture.js';
import { replayTrace } from '../src/tracing/replay-trace.js';
import { int3, ok } from './int3.js';

const dir = tempDir('int3-replay-trace-');
const log = join(dir, 'run.int3log');
ok([
  'record',
  '-o',
  log,
  '-e',
  'p:open do_sys_open filename=+0(%si):string',
  '--run',
  'cat /etc/motd',
  '--run',
  'mkdir /tmp/x',
]);

async function inProcess(path: string, args: { event?: string[]; trigger?: string[]; allowIncomplete?: boolean }) {
  let stdout = '';
  let stderr = '';
  const r = await replayTrace(readFileSync(path), path, {
    ...args,
    interrupt: new Interrupt(),
    out: (s) => (stdout += s),
    err: (s) => (stderr += s),
  });
  return { status: r.status, stdout, stderr };
}

describe('replayTrace', () => {
  it.each([
    ['the recorded run', {}, []],
    ['a probe added after the fact', { event: ['p:mk sys_mkdir'] }, ['-e', 'p:mk sys_mkdir']],
    [
      'a hist trigger added after the fact',
      { event: ['r:ret do_sys_open $retval'], trigger: ['ret=hist:keys=common_pid'] },
      ['-e', 'r:ret do_sys_open $retval', '--trigger', 'ret=hist:keys=common_pid'],
    ],
    ['a refused definition', { event: ['p vfs_read ^$retval'] }, ['-e', 'p vfs_read ^$retval']],
  ])('should print what int3 replay prints for %s', async (_what, args, argv) => {
    const expected = int3(['replay', log, ...argv]);
    expect(expected.stdout + expected.stderr).not.toBe('');
    expect(await inProcess(log, args)).toEqual(expected);
  });

  it('should print what int3 replay prints for a cut-off log, with and without --allow-incomplete', async () => {
    const cut = join(dir, 'cut.int3log');
    const lines = readFileSync(log, 'utf8').split('\n');
    writeFileSync(cut, `${lines.slice(0, -3).join('\n')}\n`);
    for (const [args, argv] of [
      [{}, []],
      [{ allowIncomplete: true }, ['--allow-incomplete']],
    ] as const) {
      const expected = int3(['replay', cut, ...argv]);
      expect(expected.stderr).toContain('incomplete log');
      expect(await inProcess(cut, args)).toEqual(expected);
    }
  });
});
