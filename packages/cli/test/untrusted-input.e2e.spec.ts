// Issue 13's parser and input cases: each answered with one clear line, in bounded time and memory,
// and the tracefs session goes on.
import { describe, expect, it } from 'vitest';
import { int3 } from './int3.js';

const DEFINE = "echo 'p:o do_sys_open flags=%dx' > kprobe_events";

describe('int3 tracefs: filters built to exhaust a recursive parser', () => {
  it("should refuse 5,000 nested parentheses, 10,000 '!' and a 10,000-term && chain as the kernel does (a page or more: EINVAL) and go on", () => {
    const filters = [
      `${'('.repeat(5000)}flags == 1${')'.repeat(5000)}`,
      `${'!'.repeat(10_000)}flags == 1`,
      Array(10_000).fill('flags == 1').join(' && '),
    ];
    const script = [
      DEFINE,
      ...filters.map((f) => `echo '${f}' > events/kprobes/o/filter`),
      'cat events/kprobes/o/filter',
      // Just under a page: accepted, folded, and matching as its meaning says (an odd run of '!').
      `echo '${'!'.repeat(4001)}flags == 12345' > events/kprobes/o/filter`,
      'echo 1 > events/kprobes/o/enable',
      'run cat /etc/motd',
      'cat trace_pipe',
    ].join('\n');
    const r = int3(['tracefs'], script);
    expect(r.stderr).toBe('echo: write error: Invalid argument\n'.repeat(3));
    expect(r.status).toBe(1);
    const out = r.stdout.split('\n');
    expect(out[0]).toBe('none');
    expect(out.filter((l) => / o: \(do_sys_open\+0x0\/0x40\) flags=/.test(l))).toHaveLength(1);
  });
});
