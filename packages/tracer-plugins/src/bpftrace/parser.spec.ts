import { describe, expect, it } from 'vitest';
import { BpftraceError, formatBpftraceError } from './bpftrace-error.js';
import { parseProgram } from './parser.js';

/** What bpftrace prints for a program that does not parse (its first error). */
function failure(source: string): string {
  try {
    parseProgram(source);
  } catch (error) {
    if (error instanceof BpftraceError) return formatBpftraceError(error, source);
    throw error;
  }
  throw new Error(`parsed: ${source}`);
}

describe(parseProgram, () => {
  it('should split attach points, aliases, offsets, modules and globs', () => {
    const p = parseProgram('k:vfs_read+0x10,kr:mod:do_*,kprobe:ksys_read { 1; }');
    expect(p.probes[0].attachPoints.map((a) => [a.provider, a.module, a.func, a.offset, a.canonical])).toEqual([
      ['kprobe', undefined, 'vfs_read', 16, 'kprobe:vfs_read+16'],
      ['kretprobe', 'mod', 'do_*', undefined, 'kretprobe:mod:do_*'],
      ['kprobe', undefined, 'ksys_read', undefined, 'kprobe:ksys_read'],
    ]);
  });

  it('should accept begin/end in both spellings and periodic probes with their periods', () => {
    const p = parseProgram('BEGIN { 1 } end { 2 } interval:s:2 { 3 } i:ms:100 { 4 } profile:hz:99 { 5 }');
    expect(p.probes.map((x) => [x.attachPoints[0].provider, x.attachPoints[0].periodNs])).toEqual([
      ['begin', undefined],
      ['end', undefined],
      ['interval', 2e9],
      ['interval', 1e8],
      ['profile', Math.round(1e9 / 99)],
    ]);
  });

  it('should parse a predicate that divides, ending at the / before the block', () => {
    const pred = parseProgram('kprobe:sys_open /100/25/ { 1; }').probes[0].predicate;
    expect(pred).toMatchObject({ kind: 'binary', op: '/', left: { value: 100n }, right: { value: 25n } });
  });

  it('should give C precedence to binary operators and bind the ternary loosest', () => {
    const e = parseProgram('begin { $x = 1 + 2 * 3 == 7 ? 4 : 5; }').probes[0].body[0];
    expect(e).toMatchObject({
      kind: 'assign',
      value: {
        kind: 'ternary',
        cond: { op: '==', left: { op: '+', right: { op: '*' } } },
      },
    });
  });

  it('should parse casts, pointer dereference, tuples and tuple fields', () => {
    const body = parseProgram('k:f { $a = *(uint64 *)arg1; $b = (uint32)-1; $t = (1, "x"); $c = $t.1; $g = (2); }')
      .probes[0].body;
    expect(body.map((s) => (s.kind === 'assign' ? s.value.kind : s.kind))).toEqual([
      'unary',
      'cast',
      'tuple',
      'field',
      'int',
    ]);
    expect(body[0]).toMatchObject({ value: { op: '*', operand: { kind: 'cast', type: 'uint64', pointer: 1 } } });
  });

  it('should parse if/else if/else, unroll, while, for and compound assignments', () => {
    const body = parseProgram(
      'begin { if ($x > 1) { @a = 1 } else if ($x) { @a = 2 } else { @a = 3 } unroll(3) { @n++ } while ($i < 5) { $i += 1; } for ($kv : @m) { print($kv.0); } }',
    ).probes[0].body;
    expect(body.map((s) => s.kind)).toEqual(['if', 'unroll', 'while', 'for']);
    expect(body[2]).toMatchObject({ body: [{ kind: 'assign', op: '+' }] });
  });

  it('should parse multi-key maps and the anonymous map', () => {
    const s = parseProgram('k:f { @[comm, pid] = count(); }').probes[0].body[0];
    expect(s).toMatchObject({ target: { kind: 'map', name: '@', keys: [{ name: 'comm' }, { name: 'pid' }] } });
  });

  it('should skip // and /* */ comments', () => {
    expect(parseProgram('// one\nbegin /* two */ { 1; } // three').probes).toHaveLength(1);
  });

  it.each([
    [
      'kprobe:sys_open { $ x = 1; }',
      "stdin:1:19-20: ERROR: syntax: expected identifier after '$'\nkprobe:sys_open { $ x = 1; }\n                  ~\n",
    ],
    [
      'kprobe:f /pid == 1 { 0; }',
      "stdin:1:20-21: ERROR: syntax: expected '/' to close predicate\nkprobe:f /pid == 1 { 0; }\n                   ~\n",
    ],
    ['begin:x { 1 }', 'stdin:1:1-8: ERROR: begin/end probes should not have a target\nbegin:x { 1 }\n~~~~~~~\n'],
    [
      'interval:s:0 { 1 }',
      'stdin:1:1-13: ERROR: interval frequency should be a positive integer\ninterval:s:0 { 1 }\n~~~~~~~~~~~~\n',
    ],
    [
      'interval:ns:100 { 1 }',
      'stdin:1:1-16: ERROR: Invalid rate of interval probe. Minimum is 1000 or 1us. Found: 100 nanoseconds\ninterval:ns:100 { 1 }\n~~~~~~~~~~~~~~~\n',
    ],
    [
      'kprobe: { 1 }',
      'stdin:1:1-8: ERROR: kprobes should be attached to a function or an address\nkprobe: { 1 }\n~~~~~~~\n',
    ],
    [
      'k:f { @x = 1 @y = 2 }',
      'stdin:1:14-16: ERROR: syntax: unexpected input in block\nk:f { @x = 1 @y = 2 }\n             ~~\n',
    ],
    [
      'k:f { printf("a", 1 }',
      'stdin:1:21-22: ERROR: syntax: expected \')\'\nk:f { printf("a", 1 }\n                    ~\n',
    ],
    ['k:f {\n\t@x = "abc\n}', 'stdin:2:7-11: ERROR: syntax: unterminated string\n    @x = "abc\n         ~~~~\n'],
  ])('should report %j as bpftrace does', (source, expected) => {
    expect(failure(source)).toBe(expected);
  });
});
