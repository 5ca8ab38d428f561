import { describe, expect, it } from 'vitest';
import type { LogEntry } from './log-codec.js';
import { text } from './log-schema.js';
import { validateLog } from './validate-log.js';

const H = 'a'.repeat(64);
const config = { type: 'config', image: 'vmlinux', imageSha256: H, cpus: 2, quantum: 10_000, panicOnOops: false };
const run = { type: 'input:run', deadlineNs: 5_000_000 };
const checkpoint = (input: number) => ({ type: 'checkpoint', input, clocks: [1, 2], hash: H });
const end = (entries: number, inputs: number) => ({ type: 'end', entries, inputs, hash: H, stop: 'complete' });
const good: LogEntry[] = [config, run, { type: 'task:exited', at: 3, cpu: 0, pid: 1 }, checkpoint(0), end(4, 1)];
const check = (entries: LogEntry[]) => () => validateLog(entries, 'r.log');

describe(validateLog, () => {
  it('should accept a log that follows the rules, and say it is complete', () => {
    const v = validateLog(good, 'r.log');
    expect(v.end).toEqual(end(4, 1));
    expect(v.replayable).toBe(4);
    expect(v.inputs).toBe(1);
  });

  it('should call a log without its end record incomplete, replayable up to its last checkpoint', () => {
    const v = validateLog([config, run, checkpoint(0), run], 'r.log');
    expect(v.end).toBeUndefined();
    expect(v.replayable).toBe(3);
    expect(v.inputs).toBe(1);
  });

  it('should name the entry and what is wrong with a type-confused field', () => {
    const cases: [LogEntry, string][] = [
      [{ type: 'input:insmod', name: 'm.ko' }, "input:insmod needs 'data' (base64 of at most 67108864 bytes)"],
      [
        { type: 'input:insmod', name: 'm.ko', data: 'AA==', params: 'x=1' },
        "input:insmod 'params' must be an array of 0 to 1024 module parameters",
      ],
      [
        { type: 'input:insmod', name: 'm.ko', data: 'AA==', sha256: 'abc' },
        "input:insmod 'sha256' must be a SHA-256 digest",
      ],
      [{ type: 'input:spawn' }, "input:spawn needs 'argv'"],
      [{ type: 'input:run', pids: {} }, "input:run 'pids' must be an array of 1 to 1024 pids"],
      [
        { type: 'input:run', deadlineNs: 1e300 },
        "input:run 'deadlineNs' must be an integer from 0 to 9007199254740991, not 1e+300",
      ],
      [
        { type: 'input:run', deadlineNs: 'x' },
        `input:run 'deadlineNs' must be an integer from 0 to 9007199254740991, not "x"`,
      ],
      [{ type: 'input:run', deadlineNs: 10n ** 15n }, "input:run 'deadlineNs' must be an integer"],
      [{ type: 'input:run', until: 1 }, 'input:run has no field "until"'],
      [{ type: 'input:tracefs-write', text: 'x', append: true }, "input:tracefs-write needs 'path'"],
      [{ type: 'input:bogus\u001b]0;PWNED' }, 'unknown input type "input:bogus\\u001b]0;PWNED"'],
    ];
    const schemas = new Map([
      ['input:tracefs-write', { required: { path: text(4096), text: text(99), append: text(1) } }],
    ]);
    for (const [entry, message] of cases) {
      expect(() => validateLog([config, entry, checkpoint(0), end(3, 1)], 'r.log', schemas), message).toThrow(
        `r.log: corrupt log: entry 1 (line 3): ${message}`,
      );
    }
  });

  it('should refuse a config a recording could not have had', () => {
    for (const [field, value] of [
      ['quantum', 0],
      ['quantum', -1],
      ['quantum', 0.5],
      ['quantum', 1e20],
      ['quantum', 'abc'],
      ['cpus', 65],
    ] as const) {
      expect(check([{ ...config, [field]: value }]), `${field} ${value}`).toThrow(
        `config '${field}' must be an integer from 1 to`,
      );
    }
  });

  it('should refuse an input without its checkpoint, a stray checkpoint or a misnumbered one', () => {
    expect(check([config, run, run, checkpoint(1), end(4, 2)])).toThrow(
      'entry 2 (line 4): input #0 has no checkpoint before the next input',
    );
    expect(check([config, checkpoint(0)])).toThrow('entry 1 (line 3): a checkpoint without an input before it');
    expect(check([config, run, checkpoint(1)])).toThrow('the checkpoint of input #0 says input #1');
    expect(check([config, run, { ...checkpoint(0), clocks: [1] }])).toThrow('the checkpoint has 1 clocks for 2 CPUs');
  });

  it('should refuse an end record that miscounts, or anything after it', () => {
    expect(check([config, run, checkpoint(0), end(2, 1)])).toThrow(
      'the end record counts 2 entries before it, the log has 3',
    );
    expect(check([config, run, checkpoint(0), end(3, 0)])).toThrow('the end record counts 0 inputs, the log has 1');
    expect(check([...good, checkpoint(0)])).toThrow('entry 5 (line 7): an entry after the end record');
    expect(check([config, run, end(2, 1)])).toThrow('the end record comes before the checkpoint of input #0');
  });

  it('should refuse caused events outside an input and entries of no known shape', () => {
    expect(check([config, { type: 'printk', level: 6, text: 'x' }])).toThrow('printk outside an input');
    expect(check([config, run, { type: 'printk', at: -1 }])).toThrow("printk 'at' must be an integer from 0");
    expect(check([config, run, { type: 'Not A Type' }])).toThrow('unknown entry type "Not A Type"');
    expect(check([run])).toThrow('entry 0 (line 2): the first entry must be the config');
  });
});
