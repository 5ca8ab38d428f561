// End-to-end tests of `int3 tracefs`: the kprobetrace documentation's walkthrough, typed as written there.
import { describe, expect, it } from 'vitest';
import { int3, lines } from './int3.js';

const WALKTHROUGH = `# Documentation/trace/kprobetrace.rst, "Usage examples"
echo 'p:myprobe do_sys_open dfd=%di filename=+0(%si):string flags=%dx mode=%cx' > /sys/kernel/tracing/kprobe_events
echo 'r:myretprobe do_sys_open $retval' >> kprobe_events
cat kprobe_events
ls events/kprobes
echo 1 > events/kprobes/myprobe/enable
echo 1 > events/kprobes/myretprobe/enable
run cat /etc/motd
cat trace
echo 0 > events/kprobes/myprobe/enable
echo -:myprobe >> kprobe_events
cat kprobe_events
cat kprobe_profile
`;

describe('int3 tracefs', () => {
  it('should reproduce the kprobetrace walkthrough: define, enable, run, cat trace, -:, kprobe_profile', () => {
    const r = int3(['tracefs', '--cpus', '1'], WALKTHROUGH);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = lines(r.stdout);
    expect(out.slice(0, 5)).toEqual([
      'p:kprobes/myprobe do_sys_open dfd=%di filename=+0(%si):string flags=%dx mode=%cx',
      'r10:kprobes/myretprobe do_sys_open arg1=$retval',
      'enable',
      'myprobe',
      'myretprobe',
    ]);
    expect(out[5]).toMatch(/^Welcome/);
    expect(out).toContain('# tracer: nop');
    const records = out.filter((l) => / (myprobe|myretprobe): /.test(l));
    expect(records).toHaveLength(2);
    expect(records[0]).toMatch(/myprobe: \(do_sys_open\+0x0\/0x[0-9a-f]+\) dfd=0xffffff9c filename="\/etc\/motd"/);
    expect(records[1]).toMatch(/myretprobe: \([a-z_0-9]+\+0x[0-9a-f]+\/0x[0-9a-f]+ <- do_sys_open\) arg1=0x3$/);
    expect(out.at(-2)).toBe('r10:kprobes/myretprobe do_sys_open arg1=$retval');
    expect(out.at(-1)).toMatch(/^ {2}myretprobe +1 +0$/);
  });

  it('should print echo: write error with strerror, go on, and exit 1', () => {
    const script = [
      "echo 'p:bad do_sys_opn' >> kprobe_events",
      "echo 'p:ok do_sys_open' >> kprobe_events",
      'echo 1 > events/kprobes/ok/enable',
      'echo > kprobe_events',
      "echo 'p:ok do_sys_open' >> kprobe_events",
      'echo 1 > no_such_file',
      'cat error_log',
      'frobnicate',
    ].join('\n');
    const r = int3(['tracefs'], script);
    expect(r.status).toBe(1);
    expect(lines(r.stderr)).toEqual([
      'echo: write error: No such file or directory',
      'echo: write error: Device or resource busy',
      'echo: write error: File exists',
      'echo: write error: No such file or directory',
      'int3: frobnicate: command not found (echo, cat, ls, run, call, sleep, insmod, rmmod, dmesg, help)',
    ]);
    expect(r.stdout).toMatch(
      /trace_kprobe: error: Invalid probed address or symbol\n {2}Command: p:bad do_sys_opn\n {17}\^/,
    );
  });

  it('should refuse a missing --script with exit 2', () => {
    const r = int3(['tracefs', '--script', '/nonexistent/x.sh']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^int3: cannot read script '\/nonexistent\/x\.sh'/);
  });
});

describe('int3 tracefs call', () => {
  it('should call a kernel function and print return: <decimal>, the probes on it firing', () => {
    const script = [
      "echo 'p:len strlen s=+0(%di):string' > kprobe_events",
      'echo 1 > events/kprobes/len/enable',
      'call strlen str:hello',
      'cat trace_pipe',
      'call strln str:x',
    ].join('\n');
    const r = int3(['tracefs'], script);
    expect(r.status).toBe(1);
    const out = lines(r.stdout);
    expect(out[0]).toBe('return: 5');
    expect(out[1]).toMatch(/ len: \(strlen\+0x0\/0x[0-9a-f]+\) s="hello"$/);
    expect(r.stderr).toMatch(/^call: unknown kernel symbol 'strln'; did you mean strlen/);
  });
});
