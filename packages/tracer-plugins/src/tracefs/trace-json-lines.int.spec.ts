import { describe, expect, it } from 'vitest';
import { bootTraceFs, run, traceLines } from '../../test/support/tracefs-machine.js';
import { surrogateEscapeEncode } from '../trace-output/surrogate-escape.js';
import type { TraceJsonEvent } from './probe-record-json.js';
import { TraceJsonLines, type TraceJsonStack } from './trace-json-lines.js';

const OPEN = 'p:open do_sys_open dfd=%di filename=+0(%si):string';

/** Runs `cat PATH` under `defs` and returns the trace's text lines and its JSON lines (parsed). */
function traceCat(path: string, defs: string[], cpus = 1) {
  const { m, fs } = bootTraceFs(cpus);
  fs.write('kprobe_events', defs.join('\n'));
  fs.write('events/kprobes/enable', '1');
  run(m, ['cat', path]);
  const text = traceLines(fs);
  const out = new TraceJsonLines(fs);
  const json = `${out.header()}${out.drain()}${out.end()}`;
  return {
    text,
    json,
    lines: json
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l)),
  };
}

const events = (lines: { type: string }[]) => lines.filter((l): l is TraceJsonEvent => l.type === 'event');

describe(TraceJsonLines, () => {
  it("should write a stacktrace trigger's <stack trace> entry as a stack line: the text's callers, innermost first", () => {
    const stackTrace = () => {
      const { m, fs } = bootTraceFs();
      fs.write('kprobe_events', 'p:rd vfs_read');
      fs.write('events/kprobes/rd/trigger', 'stacktrace:1');
      fs.write('events/kprobes/rd/enable', '1');
      run(m, ['cat', '/etc/motd']);
      return fs;
    };
    const text = traceLines(stackTrace());
    const callers = text.filter((l) => l.startsWith(' => ')).map((l) => l.slice(4));
    expect(callers.slice(0, 2)).toEqual(['vfs_read', 'ksys_read']);
    const out = new TraceJsonLines(stackTrace());
    const lines = out.drainRecords();
    expect(lines.map((l) => l.type)).toEqual(['format', 'event', 'stack', 'event']);
    const [, hit, stack] = lines as [unknown, TraceJsonEvent, TraceJsonStack];
    expect(stack).toMatchObject({ type: 'stack', timestamp: hit.timestamp, cpu: hit.cpu, pid: hit.pid, comm: 'cat' });
    expect(stack.frames.map((f) => f.symbol)).toEqual(callers);
    expect(stack.frames[0]).toMatchObject({
      address: expect.stringMatching(/^0x[0-9a-f]+$/),
      offset: expect.any(Number),
    });
    expect(out.endRecord()).toEqual({ type: 'end', events: 3, lost: 0 });
  });

  it('should keep a string holding quotes as one argument: a traced program cannot inject fields', () => {
    const path = '/tmp/a" injected="yes';
    const { text, lines } = traceCat(path, [OPEN]);
    // The text is ftrace's, ambiguous by nature; the JSON is built from the record.
    expect(text[0]).toContain('filename="/tmp/a" injected="yes"');
    const [open] = events(lines);
    expect(open.args).toEqual({ dfd: '4294967196', filename: path });
    expect(Object.keys(open)).not.toContain('injected');
  });

  it('should carry backslashes, newlines and control bytes exactly', () => {
    const path = 'a\\b\nc\t\u001b[2J\u0001\u007f"';
    expect(events(traceCat(path, [OPEN]).lines)[0].args.filename).toBe(path);
  });

  it('should surrogate-escape invalid UTF-8 so the bytes fetched come back exactly', () => {
    // +1 starts inside the two-byte é: a lone continuation byte, then valid text.
    const { lines } = traceCat('éx', ['p:open do_sys_open name=+1(%si):string whole=+0(%si):string']);
    const [open] = events(lines);
    expect(open.args).toEqual({ name: '\udca9x', whole: 'éx' });
    expect([...surrogateEscapeEncode(open.args.name as string)]).toEqual([0xa9, 0x78]);
    expect(JSON.stringify(open.args.name)).toBe('"\\udca9x"');
  });

  it('should type each argument after its fetch type, 64-bit values as exact decimal strings', () => {
    const defs = ['p:open do_sys_open sp=%sp:u64 neg=%di:s32 lo=%di:x16 c=+0(%si):char b=%di:b4@4/32 s=+0(%si):u8[2]'];
    const { text, lines } = traceCat('/etc/motd', defs);
    const [open] = events(lines);
    const sp = /sp=(\d+)/.exec(text[0])?.[1] as string;
    expect(BigInt(sp)).toBeGreaterThan(BigInt(Number.MAX_SAFE_INTEGER));
    expect(open.args).toEqual({ sp, neg: -100, lo: 0xff9c, c: 0x2f, b: 9, s: [0x2f, 0x65] });
    expect(text[0]).toContain('neg=-100 lo=0xff9c');
  });

  it('should give the header, a format line before the first record, the probe site and the end', () => {
    const { lines } = traceCat('/etc/motd', [OPEN, 'r:ret do_sys_open $retval:s32']);
    expect(lines.map((l) => l.type)).toEqual(['header', 'format', 'event', 'format', 'event', 'end']);
    expect(lines[0]).toEqual({
      type: 'header',
      format: 'int3-trace',
      version: 2,
      clock: 'virtual',
      cpus: 1,
      bufferSizeKb: 1408,
    });
    expect(lines[1]).toEqual({
      type: 'format',
      id: lines[2].id,
      group: 'kprobes',
      event: 'open',
      kind: 'kprobe',
      args: [
        { name: 'dfd', type: 'x64', count: 0 },
        { name: 'filename', type: 'string', count: 0 },
      ],
    });
    expect(lines[2]).toMatchObject({
      comm: 'cat',
      cpu: 0,
      kind: 'kprobe',
      probe: { symbol: 'do_sys_open', offset: 0, address: expect.stringMatching(/^0xffffffff81[0-9a-f]{6}$/) },
    });
    expect(Number.isInteger(lines[2].timestamp)).toBe(true);
    expect(lines[4]).toMatchObject({
      kind: 'kretprobe',
      probe: { symbol: 'do_sys_open', offset: 0 },
      caller: { symbol: expect.any(String), offset: expect.any(Number) },
      args: { arg1: 3 },
    });
    expect(lines[5]).toEqual({ type: 'end', events: 2, lost: 0 });
  });

  it('should write a lost line per gap, where the text prints CPU:N [LOST n EVENTS]', () => {
    const { m, fs } = bootTraceFs(1);
    fs.write('buffer_size_kb', '1');
    fs.write('kprobe_events', 'p:s sock_sendmsg');
    fs.write('events/kprobes/enable', '1');
    run(m, ['net', '200']);
    const written = fs.buffer.entriesWritten;
    const out = new TraceJsonLines(fs);
    const lines = `${out.drain()}${out.end()}`
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    const lost = lines.filter((l) => l.type === 'lost');
    expect(lost).toEqual([{ type: 'lost', cpu: 0, count: expect.any(Number), timestamp: lines[2].timestamp }]);
    const end = lines.at(-1);
    expect(end).toEqual({ type: 'end', events: lines.filter((l) => l.type === 'event').length, lost: lost[0].count });
    expect(end.events + end.lost).toBe(written);
  });
});
