import { describe, expect, it } from 'vitest';
import { TraceFs } from '../src/tracefs/trace-fs.js';
import { bootTraceFs, errnoOf, run, traceLines } from './support/tracefs-machine.js';

/** The record lines of a trace text (header dropped). */
const records = (text: string) => text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));

/** A 4-CPU machine with probes that fire wherever the workload runs. */
function fourCpus() {
  const booted = bootTraceFs(4);
  booted.fs.write('kprobe_events', 'p:open do_sys_open name=+0(%si):string\nr:read vfs_read ret=$retval');
  booted.fs.write('events/kprobes/enable', '1');
  const argvs = Array.from({ length: 8 }, () => ['cat', '/etc/motd']);
  run(booted.m, ...argvs);
  return booted;
}

describe('TraceFs per_cpu files', () => {
  it('should hold in per_cpu/cpuN/trace exactly the lines of CPU N, on every CPU of 4', () => {
    const { fs } = fourCpus();
    expect(fs.ls('per_cpu')).toEqual(['cpu0', 'cpu1', 'cpu2', 'cpu3']);
    expect(fs.ls('per_cpu/cpu2')).toEqual(['stats', 'trace', 'trace_pipe']);
    const all = traceLines(fs);
    const perCpu = [0, 1, 2, 3].map((cpu) => records(fs.read(`per_cpu/cpu${cpu}/trace`)));
    perCpu.forEach((lines, cpu) => {
      expect(lines.length).toBeGreaterThan(0);
      for (const l of lines) expect(l).toMatch(new RegExp(` \\[00${cpu}\\] `));
      expect(lines).toEqual(all.filter((l) => l.includes(` [00${cpu}] `)));
    });
    expect(perCpu.flat().length).toBe(all.length);
    const header = fs.read('per_cpu/cpu1/trace').split('\n')[2];
    expect(header).toBe(`# entries-in-buffer/entries-written: ${all.length}/${all.length}   #P:4`);
  });

  it('should consume only its CPU through per_cpu/cpuN/trace_pipe and count it in stats', () => {
    const { fs } = fourCpus();
    const before = records(fs.read('per_cpu/cpu3/trace'));
    const stats = fs.read('per_cpu/cpu3/stats');
    expect(stats).toMatch(
      new RegExp(
        `^entries: ${before.length}\\noverrun: 0\\ncommit overrun: 0\\nbytes: \\d+\\noldest event ts: +\\d+\\.\\d{6}\\nnow ts: +\\d+\\.\\d{6}\\ndropped events: 0\\nread events: 0\\n$`,
      ),
    );
    const total = traceLines(fs).length;
    expect(records(fs.read('per_cpu/cpu3/trace_pipe'))).toEqual(before);
    expect(fs.read('per_cpu/cpu3/trace_pipe')).toBe('');
    expect(fs.read('per_cpu/cpu3/stats')).toMatch(
      new RegExp(`^entries: 0\\n[\\s\\S]*read events: ${before.length}\\n$`),
    );
    expect(traceLines(fs)).toHaveLength(total - before.length);
    expect(records(fs.read('per_cpu/cpu0/trace')).length).toBeGreaterThan(0);
  });

  it('should clear only its CPU on echo > per_cpu/cpuN/trace, and reject CPUs it does not have', () => {
    const { fs } = fourCpus();
    const cpu0 = records(fs.read('per_cpu/cpu0/trace'));
    fs.write('per_cpu/cpu1/trace', '');
    expect(records(fs.read('per_cpu/cpu1/trace'))).toEqual([]);
    expect(records(fs.read('per_cpu/cpu0/trace'))).toEqual(cpu0);
    expect(errnoOf(() => fs.read('per_cpu/cpu4/trace'))).toBe('ENOENT');
    expect(errnoOf(() => fs.read('per_cpu/cpu01/trace'))).toBe('ENOENT');
  });
});

describe('TraceFs saved_cmdlines and trace_pipe', () => {
  it('should list "<pid> <comm>" for every task that hit an event', () => {
    const { m, fs } = bootTraceFs();
    fs.write('kprobe_events', 'p:open do_sys_open');
    fs.write('events/kprobes/open/enable', '1');
    run(m, ['cat', '/etc/motd'], ['cat', '/etc/motd']);
    const pids = traceLines(fs).map((l) => Number(/cat-(\d+) /.exec(l)?.[1]));
    expect(new Set(pids).size).toBe(2);
    expect(fs.read('saved_cmdlines')).toBe([...new Set(pids)].map((p) => `${p} cat\n`).join(''));
  });

  it('should read an empty buffer through trace_pipe as "" at once (non-blocking)', () => {
    const { fs } = bootTraceFs();
    expect(fs.read('trace_pipe')).toBe('');
    expect([...fs.readChunks('trace_pipe')]).toEqual([]);
    expect(fs.read('README')).toContain('non-blocking');
  });
});

describe(TraceFs.prototype.readChunks, () => {
  it('should stream trace as chunks whose concatenation is read(), and consume trace_pipe as it goes', () => {
    const { m, k, fs } = bootTraceFs();
    fs.write('buffer_size_kb', '4096');
    fs.write('kprobe_events', 'p:ev vfs_read count=%dx');
    fs.write('events/kprobes/ev/enable', '1');
    const kp = fs.kprobeEvents.probes[0].kp;
    let done = false;
    k.registerKprobe({
      symbolName: 'do_sys_open',
      // At one real hit, record 20,000 events as if vfs_read had been hit that often.
      preHandler: (_p, regs) => {
        if (!done) for (let i = 0; i < 20_000; i++) kp.preHandler?.(kp, regs);
        done = true;
        return 0;
      },
    });
    run(m, ['cat', '/etc/motd']);
    const chunks = [...fs.readChunks('trace')];
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.join('')).toBe(fs.read('trace'));
    for (const c of chunks) expect(c.endsWith('\n')).toBe(true);
    const pipe = fs.readChunks('trace_pipe')[Symbol.iterator]();
    const first = pipe.next();
    expect(first.done).toBe(false);
    const left = fs.buffer.entries;
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThan(20_000);
    expect(errnoOf(() => fs.readChunks('events'))).toBe('EISDIR');
  });
});
