import { describe, expect, it } from 'vitest';
import type { PlaygroundRequester } from './playground-client.js';
import { DEFAULT_STATE } from './playground-state.js';
import type { PlaygroundReply } from './protocol.js';
import { runState, traceRows } from './run-state.js';

/** A worker stand-in that records the lines and answers from a table (failing lines fail). */
function fakeClient(
  answers: Record<string, string>,
  failing: Set<string> = new Set(),
): PlaygroundRequester & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    request: async (r) => {
      if (r.type === 'boot')
        return { type: 'booted', id: 0, ms: 1, modules: ['modules/hello.ko'] } satisfies PlaygroundReply;
      if (r.type !== 'exec') throw new Error(`unexpected request ${r.type}`);
      lines.push(r.line);
      const failed = failing.has(r.line);
      return {
        type: 'done',
        id: 0,
        output: failed
          ? [{ stream: 'err', text: 'echo: write error: Invalid argument\n' }]
          : [{ stream: 'out', text: answers[r.line] ?? '' }],
        failed,
        budgetExceeded: false,
        instructions: 42,
        compiled: 40,
      };
    },
  };
}

describe(runState, () => {
  it('should write the definitions, filters and enable, run the workloads, then read the files', async () => {
    const client = fakeClient({ 'cat trace_pipe': 'T\n', 'run cat /etc/motd': 'Welcome\n' });
    const result = await runState(client, {
      ...DEFAULT_STATE,
      filters: ['myprobe=common_pid == 1'],
      optimize: false,
      shell: ['ls'],
    });
    expect(client.lines.filter((l) => l !== 'cat error_log')).toEqual([
      'echo 0 > /proc/sys/debug/kprobes-optimization',
      "echo 'p:myprobe do_sys_open filename=+0(%si):string' >> kprobe_events",
      "echo 'common_pid == 1' > events/kprobes/myprobe/filter",
      'echo 1 > events/enable',
      'run cat /etc/motd',
      'cat trace_pipe',
      'cat /sys/kernel/debug/kprobes/list',
      'cat kprobe_profile',
      'ls',
    ]);
    expect(result.trace).toBe('T\n');
    expect(result.console).toBe('Welcome\n');
    expect(result.shell).toBe('tracefs# ls\n');
    expect(result.instructions).toBe(42);
    expect(result.compiled).toBe(40);
    expect(result.modules).toEqual(['modules/hello.ko']);
  });

  it("should stop at a refused definition and show error_log's new lines", async () => {
    const bad = "echo 'p vfs_read ^$retval' >> kprobe_events";
    let reads = 0;
    const client = fakeClient({}, new Set([bad]));
    const request = client.request;
    client.request = async (r) => {
      const reply = await request(r);
      if (r.type === 'exec' && r.line === 'cat error_log' && reply.type === 'done') {
        reads++;
        return { ...reply, output: [{ stream: 'out', text: reads === 1 ? 'old\n' : 'old\nnew ^\n' }] };
      }
      return reply;
    };
    const result = await runState(client, { ...DEFAULT_STATE, definitions: ['p vfs_read ^$retval'] });
    expect(result.errors).toBe(
      "bad probe definition 'p vfs_read ^$retval': echo: write error: Invalid argument\nnew ^\n",
    );
    expect(client.lines).not.toContain('run cat /etc/motd');
  });
});

describe(traceRows, () => {
  it('should split ftrace lines into columns and skip the header', () => {
    const rows = traceRows(
      '# tracer: nop\n             cat-1       [000] d....     0.000010: myprobe: (do_sys_open+0x0/0x40) filename="/etc/motd"\n',
    );
    expect(rows).toEqual([
      {
        task: 'cat',
        pid: '1',
        cpu: '000',
        flags: 'd....',
        timestamp: '0.000010',
        event: 'myprobe',
        args: '(do_sys_open+0x0/0x40) filename="/etc/motd"',
      },
    ]);
  });
});
