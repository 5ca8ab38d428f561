import { describe, expect, it } from 'vitest';
import { BpftraceProgram } from './bpftrace-program.js';
import { runBegin } from './bpftrace-runtime.fixture.js';

/** Lines of a histogram row, as bpftrace's tests/runtime/outputs/*.txt have them. */
const bar = (n: number) => '@'.repeat(n).padEnd(52);

describe(BpftraceProgram, () => {
  it('should print scalar and keyed maps in name order after two newlines', () => {
    expect(runBegin('begin { @b = 2; @a["x"] = 1; @a["y"] = 3; }')).toBe('\n\n@a[x]: 1\n@a[y]: 3\n@b: 2\n');
  });

  it('should order count maps by value and print tuple keys without parentheses', () => {
    expect(runBegin('begin { @[1, "hi"] = count(); @[1, "hi"] = count(); @[2, "a"] = count(); }')).toBe(
      '\n\n@[2, a]: 1\n@[1, hi]: 2\n',
    );
  });

  it('should print stats and avg as bpftrace does', () => {
    expect(runBegin('begin { @s = stats(2); @s = stats(10); @a = avg(3); @a = avg(4); }')).toBe(
      '\n\n@a: 3\n@s: { .count = 2, .average = 6, .total = 12 }\n',
    );
  });

  it('should print a log2 histogram with negative, zero and power-of-two buckets (bpftrace hist.txt)', () => {
    const out = runBegin('begin { @ = hist(-1); @ = hist(2); @ = hist(3); @ = hist(5); @ = hist(16); }');
    expect(out).toBe(
      [
        '',
        '',
        '@:',
        `(..., 0)               1 |${bar(26)}|`,
        `[0]                    0 |${bar(0)}|`,
        `[1]                    0 |${bar(0)}|`,
        `[2, 4)                 2 |${bar(52)}|`,
        `[4, 8)                 1 |${bar(26)}|`,
        `[8, 16)                0 |${bar(0)}|`,
        `[16, 32)               1 |${bar(26)}|`,
        '',
        '',
      ].join('\n'),
    );
  });

  it('should label large buckets with K to E suffixes and keep huge values', () => {
    const out = runBegin('begin { @ = hist(1024); @ = hist(0x7fffffffffffffff); }');
    expect(out).toContain('[1K, 2K)');
    expect(out).toContain('[4E, 8E)');
  });

  it('should print a linear histogram with its underflow and overflow buckets (bpftrace lhist.txt)', () => {
    const out = runBegin(
      'begin { @ = lhist(-1, 0, 10, 2); @ = lhist(3, 0, 10, 2); @ = lhist(2, 0, 10, 2); @ = lhist(7, 0, 10, 2); @ = lhist(10, 0, 10, 2); }',
    );
    expect(out).toBe(
      [
        '',
        '',
        '@:',
        `(..., 0)               1 |${bar(26)}|`,
        `[0, 2)                 0 |${bar(0)}|`,
        `[2, 4)                 2 |${bar(52)}|`,
        `[4, 6)                 0 |${bar(0)}|`,
        `[6, 8)                 1 |${bar(26)}|`,
        `[8, 10)                0 |${bar(0)}|`,
        `[10, ...)              1 |${bar(26)}|`,
        '',
        '',
      ].join('\n'),
    );
  });

  it('should print keyed histograms ordered by total count, each followed by an empty line', () => {
    const out = runBegin('begin { @h["b"] = hist(1); @h["b"] = hist(1); @h["a"] = hist(4); }');
    expect(out).toBe(
      `\n\n@h[a]:\n[4, 8)                 1 |${bar(52)}|\n\n@h[b]:\n[1]                    2 |${bar(52)}|\n\n`,
    );
  });

  it('should print nothing for a cleared map and the remaining entries after delete', () => {
    expect(
      runBegin(
        'begin { @a[1] = 1; @a[2] = 2; clear(@a); @b[1] = 1; @b[2] = 2; delete(@b[1]); delete(@b, 2); @c[5] = 5; @c[6] = 6; delete(@c[5]); }',
      ),
    ).toBe('\n\n@c[6]: 6\n');
  });

  it('should print the top entries divided, with print(@, top, div) (bpftrace print_avg_map_args)', () => {
    expect(
      runBegin(
        'begin { @["a"] = avg(10); @["b"] = avg(20); @["c"] = avg(30); @["d"] = avg(40); print(@, 2, 10); clear(@); }',
      ),
    ).toBe('@[c]: 3\n@[d]: 4\n\n\n');
  });

  it('should evaluate integer arithmetic with bpftrace types, casts and BPF division', () => {
    expect(
      runBegin('begin { printf("%d %d %u %d %d %x\\n", 7 / 2, -7 % 3, (uint8)257, 5 / 0, (int8)255, (uint32)-1); }'),
    ).toBe('3 -1 1 0 -1 ffffffff\n\n\n');
  });

  it('should format printf conversions with flags, width and precision', () => {
    expect(
      runBegin(
        'begin { printf("[%5d|%-5d|%05d|%s|%-6s|%.2s|%c|%p|%%]\\n", 42, 42, 42, "str", "ab", "xyz", 65, 255); }',
      ),
    ).toBe('[   42|42   |00042|str|ab    |xy|A|0xff|%]\n\n\n');
  });

  it('should run if/else, ternary, unroll, while with break, and for over a map', () => {
    const prog =
      'begin { $i = 0; while ($i < 10) { $i++; if ($i == 4) { break; } } @w = $i; unroll(3) { @u++; } @t = $i > 3 ? 1 : 2; @m[1] = 10; @m[2] = 20; for ($kv : @m) { @s += $kv.1; } if (@w == 3) { @e = 1 } else { @e = 2 } }';
    expect(runBegin(prog)).toBe('\n\n@e: 2\n@m[1]: 10\n@m[2]: 20\n@s: 30\n@t: 1\n@u: 3\n@w: 4\n');
  });

  it('should print tuples, strings, booleans and has_key/len results', () => {
    expect(
      runBegin('begin { @t = (1, "two", (3, 4)); @k[1] = 1; @h = has_key(@k, 1); @n = has_key(@k, 2); @l = len(@k); }'),
    ).toBe('\n\n@h: true\n@k[1]: 1\n@l: 1\n@n: false\n@t: (1, two, (3, 4))\n');
  });

  it('should read kernel memory through a pointer cast and str()', () => {
    expect(runBegin('begin { printf("%d %s %d\\n", *(uint32 *)0x1010, str(0x1000), *(int64 *)0x1010); }')).toBe(
      '42 hello -9223372036854775766\n\n\n',
    );
  });

  it('should run end probes after begin, and exit() stop later probes but not end', () => {
    expect(runBegin('begin { printf("a\\n"); exit(); } begin { printf("b\\n"); } end { printf("c\\n"); }')).toBe(
      'a\nc\n\n\n',
    );
  });

  it('should print JSON lines as bpftrace -f json does', () => {
    expect(
      runBegin(
        'begin { @map["key1"] = 2; @map["key2"] = 3; @s = stats(2); @s = stats(10); @h = hist(2); @h = hist(1025); printf("test %d", 5); @c[comm, 2] = 5; @t = (1, 2, "string", (4, 5)); }',
        'json',
      ),
    ).toBe(
      [
        '{"type": "printf", "data": "test 5"}',
        '{"type": "map", "data": {"@c": {"bpftrace,2": 5}}}',
        '{"type": "hist", "data": {"@h": [{"min": 2, "max": 3, "count": 1},{"min": 4, "max": 7, "count": 0},{"min": 8, "max": 15, "count": 0},{"min": 16, "max": 31, "count": 0},{"min": 32, "max": 63, "count": 0},{"min": 64, "max": 127, "count": 0},{"min": 128, "max": 255, "count": 0},{"min": 256, "max": 511, "count": 0},{"min": 512, "max": 1023, "count": 0},{"min": 1024, "max": 2047, "count": 1}]}}',
        '{"type": "map", "data": {"@map": {"key1": 2, "key2": 3}}}',
        '{"type": "stats", "data": {"@s": {"count": 2, "average": 6, "total": 12}}}',
        '{"type": "map", "data": {"@t": [1,2,"string",[4,5]]}}',
        '',
      ].join('\n'),
    );
  });

  it('should print underflow and overflow buckets in JSON with one bound (bpftrace hist_multiple.json, lhist.json)', () => {
    const out = runBegin(
      'begin { @a = hist(-1); @a = hist(0); @b = lhist(2, 0, 100, 10); @b = lhist(1000, 0, 100, 10); }',
      'json',
    );
    expect(out).toContain('"@a": [{"max": -1, "count": 1},{"min": 0, "max": 0, "count": 1}]');
    expect(out).toContain('{"min": 90, "max": 99, "count": 0},{"min": 100, "count": 1}]');
  });

  it('should print an empty histogram after zero() and skip an empty keyed map in JSON', () => {
    expect(runBegin('begin { @hist = hist(2); zero(@hist); @m[1] = 1; clear(@m); }', 'json')).toBe(
      '{"type": "hist", "data": {"@hist": []}}\n',
    );
  });

  it('should give the same output for the same program twice', () => {
    const prog = 'begin { @[1] = hist(5); @[2] = lhist(3, 0, 10, 1); @c["x"] = count(); printf("%d\\n", nsecs); }';
    expect(runBegin(prog)).toBe(runBegin(prog));
  });
});

describe('bpftrace semantic errors', () => {
  it.each([
    ['kprobe:f { fake }', "stdin:1:12-16: ERROR: Unknown identifier: 'fake'\nkprobe:f { fake }\n           ~~~~\n"],
    [
      'kprobe:f { @x = 0; @x = "a"; }',
      "stdin:1:20-28: ERROR: Type mismatch for @x: trying to assign value of type 'string[2]' when map already has a type 'int8'\nkprobe:f { @x = 0; @x = \"a\"; }\n                   ~~~~~~~~\n",
    ],
    [
      'kprobe:f { @x = 1; @x = count(); }',
      "stdin:1:25-32: ERROR: Type mismatch for @x: trying to assign value of type 'count_t' when map already has a type 'int8'\nkprobe:f { @x = 1; @x = count(); }\n                        ~~~~~~~\n",
    ],
    [
      'begin { @x[1,2] = 0; @x[3]; }',
      "stdin:1:22-27: ERROR: Argument mismatch for @x: trying to access with arguments: 'int8' when map expects arguments: '(int8,int8)'\nbegin { @x[1,2] = 0; @x[3]; }\n                     ~~~~~\n",
    ],
    [
      'begin { @g = 2; if (has_key(@g, 2)) { printf("ok\\n"); } }',
      'stdin:1:21-35: ERROR: call to has_key() expects a map with explicit keys (non-scalar map)\nbegin { @g = 2; if (has_key(@g, 2)) { printf("ok\\n"); } }\n                    ~~~~~~~~~~~~~~\n',
    ],
    [
      'kprobe:f { @ = hist(5); if (@ > 0) { print((1)); } }',
      "stdin:1:29-34: ERROR: Type mismatch for '>': comparing hist_t with int8\nkprobe:f { @ = hist(5); if (@ > 0) { print((1)); } }\n                            ~~~~~\n",
    ],
    ['begin { foo(1); }', "stdin:1:9-15: ERROR: Unknown function: 'foo'\nbegin { foo(1); }\n        ~~~~~~\n"],
    [
      'begin { $b = "hi"; $b = 1; }',
      "stdin:1:20-26: ERROR: Type mismatch for $b: trying to assign value of type 'int8' when variable already has a type 'string[3]'\nbegin { $b = \"hi\"; $b = 1; }\n                   ~~~~~~\n",
    ],
    [
      'begin { printf("%d\\n", "s"); }',
      'stdin:1:9-28: ERROR: printf: %d specifier expects a value of type integer (string[2] supplied)\nbegin { printf("%d\\n", "s"); }\n        ~~~~~~~~~~~~~~~~~~~\n',
    ],
    [
      'begin { $x = count(); }',
      'stdin:1:14-21: ERROR: count() must be assigned directly to a map\nbegin { $x = count(); }\n             ~~~~~~~\n',
    ],
    [
      'begin { print(retval); }',
      "stdin:1:15-21: ERROR: The retval builtin can only be used with 'kretprobe' probes\nbegin { print(retval); }\n              ~~~~~~\n",
    ],
  ])('should report %j as bpftrace does', (source, expected) => {
    expect(runBegin(source)).toBe(expected);
  });

  it.each([
    [
      'begin { foo(1); bar(2); }',
      "stdin:1:9-15: ERROR: Unknown function: 'foo'\nbegin { foo(1); bar(2); }\n        ~~~~~~\n" +
        "stdin:1:17-23: ERROR: Unknown function: 'bar'\nbegin { foo(1); bar(2); }\n                ~~~~~~\n",
    ],
    [
      'kprobe:f /fake/ { if (1) { nope(); } } end { $x = count(); }',
      "stdin:1:11-15: ERROR: Unknown identifier: 'fake'\nkprobe:f /fake/ { if (1) { nope(); } } end { $x = count(); }\n          ~~~~\n" +
        "stdin:1:28-34: ERROR: Unknown function: 'nope'\nkprobe:f /fake/ { if (1) { nope(); } } end { $x = count(); }\n                           ~~~~~~\n" +
        'stdin:1:51-58: ERROR: count() must be assigned directly to a map\nkprobe:f /fake/ { if (1) { nope(); } } end { $x = count(); }\n                                                  ~~~~~~~\n',
    ],
  ])('should report every mistake of %j in source order, as bpftrace does', (source, expected) => {
    expect(runBegin(source)).toBe(expected);
  });
});
