// End-to-end tests of the machine-readable output (`--format json|chrome`, `call -e --json`), lost
// events, `--buffer-size`, `-o -` and streaming: they spawn the built binary (dist/).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv2020Module from 'ajv/dist/2020.js';
import { afterAll, describe, expect, it } from 'vitest';
import { int3, lines, ok, REPO_ROOT, startInt3 } from './int3.js';

const dir = mkdtempSync(join(tmpdir(), 'int3-json-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SCHEMA_PATH = join(REPO_ROOT, 'packages/tracer-plugins/schema/trace-json-lines.v2.schema.json');
// ajv is CommonJS: its default export is the class at run time; its types name it `.default`.
const Ajv2020 = Ajv2020Module as unknown as typeof Ajv2020Module.default;
const validate = new Ajv2020({ allErrors: true }).compile(JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')));

/** Parses JSON Lines and checks every line against the schema. */
function checked(text: string): Record<string, unknown>[] {
  return lines(text).map((l) => {
    const value: Record<string, unknown> = JSON.parse(l);
    if (!validate(value)) throw new Error(`${l}\n${JSON.stringify(validate.errors, null, 1)}`);
    return value;
  });
}

const OPEN = 'p:open do_sys_open dfd=%di filename=+0(%si):string';
const EVERY_TYPE = [
  'p:all do_sys_open dfd=%di:s32 u=%di:u8 x=%di:x16 sp=%sp:u64 s64=%di:s64 x64=%di c=+0(%si):char',
  'b=%di:b4@4/32 arr=+0(%si):u8[3] sym=%ip:symbol name=+0(%si):string bad=+0(%ax):string',
].join(' ');
const NET = ['-e', 'p:s sock_sendmsg', '-e', 'p:t tcp_sendmsg', '-e', 'p:i inet_sendmsg'];

describe('--format json', () => {
  it('should follow the schema in trace, record and replay, for every fetch type and both probe kinds', () => {
    const args = ['-e', EVERY_TYPE, '-e', 'r:ret do_sys_open $retval', '--run', 'cat /etc/motd', '--format', 'json'];
    const live = ok(['trace', ...args, '--run', 'mkdir /tmp/x']);
    const records = checked(live);
    expect(records.map((r) => r.type)).toEqual(['header', 'format', 'event', 'format', 'event', 'end']);
    const all = records[2] as { args: Record<string, unknown> };
    expect(all.args).toMatchObject({ dfd: -100, u: 0x9c, x: 0xff9c, s64: '4294967196', x64: '4294967196', c: 47 });
    expect(all.args.bad).toBeNull();
    // %ip in a kprobe handler is past the int3 (the kernel's regs->ip too).
    expect(all.args.sym).toMatchObject({ symbol: 'do_sys_open', offset: 1 });
    const log = join(dir, 'json.int3log');
    expect(ok(['record', '-o', log, ...args, '--run', 'mkdir /tmp/x'])).toBe(live);
    expect(ok(['replay', log, '--format', 'json'])).toBe(live);
  });

  it("should write a stacktrace trigger's entries as stack lines that follow the schema", () => {
    const args = ['-e', 'p:rd vfs_read', '--trigger', 'rd=stacktrace:1', '--run', 'cat /etc/motd'];
    const records = checked(ok(['trace', ...args, '--format', 'json']));
    expect(records.map((r) => r.type)).toEqual(['header', 'format', 'event', 'stack', 'event', 'end']);
    const text = lines(ok(['trace', ...args])).filter((l) => l.startsWith(' => '));
    expect((records[3].frames as { symbol: string }[]).map((f) => ` => ${f.symbol}`)).toEqual(text);
  });

  it('should keep a path holding quotes as one string: a traced program cannot inject fields', () => {
    const path = '/tmp/a" injected="yes';
    // No such file in the guest: cat fails (exit 1, said on stderr) after the open was traced.
    const failedCat = (args: string[]) => {
      const r = int3(args);
      expect(r.stderr).toBe('int3: the run failed: workload "cat" (pid 1) exited with status 1\n');
      expect(r.status).toBe(1);
      return r.stdout;
    };
    const text = failedCat(['trace', '-e', OPEN, '--run', `cat '${path}'`]);
    expect(text).toContain('filename="/tmp/a" injected="yes"');
    const [open] = checked(failedCat(['trace', '-e', OPEN, '--run', `cat '${path}'`, '--format', 'json'])).filter(
      (r) => r.type === 'event',
    );
    expect(open.args).toEqual({ dfd: '4294967196', filename: path });
    expect(open).not.toHaveProperty('injected');
  });

  it('should carry quotes, backslashes, newlines, control bytes and invalid UTF-8 exactly in call -e --json', () => {
    const s = 'é"\\\n\u001b[2J\u0001';
    const r = JSON.parse(
      ok(['call', '--json', '-e', 'p:len strlen s=+0(%di):string t=+1(%di):string', 'strlen', `str:${s}`]),
    );
    expect(r.return).toBe(String(new TextEncoder().encode(s).length));
    for (const record of r.trace) expect(validate(record)).toBe(true);
    const [hit] = r.trace.filter((x: { type: string }) => x.type === 'event');
    // t starts inside é: its second byte alone is not UTF-8, so it is surrogate-escaped.
    expect(hit.args).toEqual({ s, t: `\udca9${s.slice(1)}` });
  });
});

describe('lost events', () => {
  it("should lose nothing of the issue's run (net 20000, three probes) now that the buffer drains per slice", () => {
    const file = join(dir, 'net.jsonl');
    const r = int3(['trace', ...NET, '--run', 'net 20000', '--format', 'json', '-o', file]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const end = JSON.parse(lines(readFileSync(file, 'utf8')).at(-1) as string);
    expect(end).toEqual({ type: 'end', events: 60000, lost: 0 });
  });

  it('should say so in all three formats and in one stderr line when --buffer-size is too small', () => {
    const args = ['trace', '-e', 'p:s sock_sendmsg', '--run', 'net 2000', '--buffer-size', '4'];
    const text = int3(args);
    const stderr = /^int3: lost (\d+) events on CPU 0; raise --buffer-size \(now 4 KiB per CPU\)\n$/;
    expect(text.stderr).toMatch(stderr);
    const total = Number(stderr.exec(text.stderr)?.[1]);
    const gaps = lines(text.stdout).filter((l) => /^CPU:0 \[LOST \d+ EVENTS\]$/.test(l));
    expect(gaps.length).toBeGreaterThan(0);
    const sum = (ns: number[]) => ns.reduce((a, b) => a + b, 0);
    expect(sum(gaps.map((l) => Number(/\d+ EVENTS/.exec(l)?.[0].split(' ')[0])))).toBe(total);
    const json = int3([...args, '--format', 'json']);
    expect(json.stderr).toBe(text.stderr);
    const lost = checked(json.stdout).filter((x) => x.type === 'lost');
    expect(lost).toHaveLength(gaps.length);
    expect(sum(lost.map((x) => x.count as number))).toBe(total);
    const chrome = int3([...args, '--format', 'chrome']);
    expect(chrome.stderr).toBe(text.stderr);
    const instants = JSON.parse(chrome.stdout).traceEvents.filter((e: { cat?: string }) => e.cat === 'lost');
    expect(instants).toHaveLength(gaps.length);
    expect(sum(instants.map((e: { args: { count: number } }) => e.args.count))).toBe(total);
  });

  it('should refuse a bad --buffer-size with exit 2', () => {
    for (const bad of ['0', '-1', '1.5', 'x', '65537']) {
      const r = int3(['trace', '--buffer-size', bad]);
      expect(r.status).toBe(2);
      expect(r.stderr.startsWith(`int3: bad --buffer-size '${bad}': expected KiB per CPU, 1 to 65536`)).toBe(true);
    }
  });
});

describe('output', () => {
  it('should write the first line of a long run before the run ends', async () => {
    const p = startInt3(['trace', '-e', 'p:s sock_sendmsg', '--run', 'net 100000']);
    const first = await new Promise<string>((resolve) => {
      p.child.stdout?.on('data', () => {
        if (p.stdout.includes('\n')) resolve(p.stdout.slice(0, p.stdout.indexOf('\n')));
      });
    });
    const running = p.child.exitCode === null;
    p.child.kill('SIGKILL');
    await p.done;
    expect(first).toMatch(/ s: \(sock_sendmsg\+0x0\/0x[0-9a-f]+\)$/);
    expect(running).toBe(true);
  });

  it('should take -o - as standard output', () => {
    const args = ['trace', '-e', OPEN, '--run', 'cat /etc/motd'];
    expect(ok([...args, '-o', '-'])).toBe(ok(args));
  });

  it('should take record -o - as the log on stdout, the trace then going to stderr', () => {
    const args = ['-e', OPEN, '--run', 'cat /etc/motd'];
    const r = int3(['record', '-o', '-', ...args]);
    expect(r.status).toBe(0);
    expect(r.stdout.startsWith('INT3LOG 4\n')).toBe(true);
    expect(r.stderr).toBe(ok(['trace', ...args]));
    const log = join(dir, 'stdout.int3log');
    writeFileSync(log, r.stdout);
    expect(ok(['replay', log])).toBe(r.stderr);
  });

  it('should give Chrome complete (X) events for entry/return pairs and say what pid and tid mean', () => {
    const doc = JSON.parse(
      ok([
        'trace',
        '-e',
        'p:in vfs_read',
        '-e',
        'r:out vfs_read $retval',
        '--run',
        'cat /etc/motd',
        '--format',
        'chrome',
      ]),
    );
    const reads = doc.traceEvents.filter((e: { name: string }) => e.name === 'vfs_read');
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.every((e: { ph: string; dur: number }) => e.ph === 'X' && e.dur > 0)).toBe(true);
    expect(doc.traceEvents).toContainEqual(
      expect.objectContaining({
        ph: 'M',
        name: 'process_labels',
        args: { labels: 'pid = CPU number, tid = task pid' },
      }),
    );
  });
});
