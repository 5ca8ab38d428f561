// End-to-end tests of `--image` with a freestanding x86-64 ELF (not a kernel): `call -e`, `tracefs` and
// `trace` link it beside the sample kernel as a module named after the file, and every probe mechanism
// works on its functions. The image is compiled with gcc at test time (gcc is on every machine).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { int3, lines, REPO_ROOT } from './int3.js';

const FLAGS = [
  '-O1',
  '-fno-optimize-sibling-calls',
  '-ffreestanding',
  '-fno-pic',
  '-mcmodel=kernel',
  '-mno-red-zone',
  '-mno-sse',
  '-mno-mmx',
  '-mno-sse2',
  '-fno-asynchronous-unwind-tables',
  '-nostdlib',
  '-static',
  // The kernel text mapping, clear of the sample kernel at 0xffffffff81000000.
  '-Wl,-Ttext=0xffffffff90000000',
  '-Wl,--build-id=none',
];

const SOURCE = `
struct point { long x; unsigned char flags; };
long table[2] = { 11, 22 };
char greeting[] = "hi there";
long fact(long n) { return n <= 1 ? 1 : n * fact(n - 1); }
long add3(long a, long b, long c) { return a + b + c; }
unsigned long count_char(const char *s, char c) { unsigned long n = 0; for (; *s; s++) n += *s == c; return n; }
long px(struct point *p) { return p->x + p->flags; }
long mix(long a, long b) { long r = 0; for (long i = 0; i < (b & 15); i++) r = r * 31 + (a ^ i); return r; }
/* mul2+4 is the nop: lea (%rdi,%rdi),%rax is 4 bytes. */
__asm__(".globl mul2\\n.type mul2,@function\\nmul2:\\n lea (%rdi,%rdi),%rax\\n nop\\n ret\\n.size mul2,.-mul2\\n");
void _start(void) {}
`;

let dir: string;
let image: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'int3-image-'));
  writeFileSync(join(dir, 'mylib.c'), SOURCE);
  image = join(dir, 'mylib.elf');
  execFileSync('gcc', [...FLAGS, '-o', image, join(dir, 'mylib.c'), '-lgcc']);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function callE(defs: readonly string[], fn: string, ...args: string[]) {
  return int3(['call', '--image', image, ...defs.flatMap((d) => ['-e', d]), fn, ...args]);
}

/** The trace records of an output (ftrace lines). */
function records(out: string): string[] {
  return lines(out).filter((l) => /^\s+\S+-\d+ +\[\d{3}\]/.test(l));
}

describe('int3 call --image <freestanding ELF> -e', () => {
  it('should fetch registers, $argN, @sym, @sym+off, $stackN and strings at a function entry', () => {
    const r = callE(
      [
        'p:t add3 a=%di b=$arg2 c=%dx:s32 tab=@table:s64 tab1=@table+8:s64 st=$stack0:x64 g=@greeting:string',
        'p:c count_char s=+0(%di):string ch=%si:char first=+0(%di):u8[3] sym=%ip:symbol',
      ],
      'add3',
      '1',
      '2',
      '-3',
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const [line] = records(r.stdout);
    expect(line).toMatch(
      / t: \(add3\+0x0\/0x[0-9a-f]+ \[mylib\]\) a=0x1 b=0x2 c=-3 tab=11 tab1=22 st=0x[0-9a-f]+ g="hi there"$/,
    );
    expect(lines(r.stdout).at(-1)).toBe('return: 0');
    const c = callE(
      ['p:c count_char s=+0(%di):string ch=%si:char first=+0(%di):u8[3] bf=%si:b4@4/8'],
      'count_char',
      'str:hello',
      '108',
    );
    expect(records(c.stdout)[0]).toMatch(
      / c: \(count_char\+0x0\/0x[0-9a-f]+ \[mylib\]\) s="hello" ch='l' first=\{104,101,108\} bf=6$/,
    );
    expect(lines(c.stdout).at(-1)).toBe('return: 2');
  });

  it('should dereference through +off(...) into a structure argument', () => {
    const r = callE(['p:p px x=+0(%di):s64 flags=+8(%di):u8'], 'px', 'buf:16');
    expect(records(r.stdout)[0]).toMatch(/ p: \(px\+0x0\/0x[0-9a-f]+ \[mylib\]\) x=0 flags=0$/);
  });

  it('should probe at an instruction boundary inside a function, and refuse one inside an instruction', () => {
    const r = callE(['p:mid mul2+0x4 rax=%ax'], 'mul2', '21');
    expect(records(r.stdout)[0]).toMatch(/ mid: \(mul2\+0x4\/0x[0-9a-f]+ \[mylib\]\) rax=0x2a$/);
    expect(lines(r.stdout).at(-1)).toBe('return: 42');
    const bad = callE(['p:mid mul2+0x2'], 'mul2', '21');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/Probe point is not an instruction boundary/);
  });

  it('should trace returns with $retval, by r and by %return', () => {
    const r = callE(['r:f fact ret=$retval', 'p:g fact%return ret=$retval:s64'], 'fact', '5');
    const recs = records(r.stdout);
    // Five returns each: fact(1) … fact(5), innermost first.
    expect(recs.filter((l) => / f: /.test(l)).map((l) => l.replace(/.* ret=/, ''))).toEqual([
      '0x1',
      '0x2',
      '0x6',
      '0x18',
      '0x78',
    ]);
    expect(recs.filter((l) => / g: /.test(l)).at(-1)).toMatch(/ g: \(.* <- fact\) ret=120$/);
    expect(lines(r.stdout).at(-1)).toBe('return: 120');
  });
});

describe('int3 tracefs --image <freestanding ELF>', () => {
  it('should count kretprobe misses past maxactive on real recursion in kprobe_profile', () => {
    const script = [
      "echo 'r1:f fact ret=$retval' > kprobe_events",
      'echo 1 > events/kprobes/f/enable',
      'call fact 4',
      'cat kprobe_profile',
    ].join('\n');
    const r = int3(['tracefs', '--image', image], script);
    expect(r.stderr).toBe('');
    expect(lines(r.stdout)).toEqual(['return: 24', expect.stringMatching(/^ {2}f +1 +3$/)]);
  });

  it('should filter, list the probe with its module, jump-optimize it, and refuse kprobes’ own text', () => {
    const script = [
      "echo 'p:a add3 x=%di' > kprobe_events",
      "echo 'x == 7' > events/kprobes/a/filter",
      'echo 1 > events/kprobes/a/enable',
      'sleep 10',
      'cat /sys/kernel/debug/kprobes/list',
      'call add3 1 0 0',
      'call add3 7 0 0',
      'cat trace_pipe',
      "echo 'p:bl kretprobe_trampoline' >> kprobe_events",
    ].join('\n');
    const r = int3(['tracefs', '--image', image], script);
    const out = lines(r.stdout);
    expect(out[0]).toMatch(/^ffffffff9[0-9a-f]{7} {2}k {2}add3\+0x0 {2}mylib \[OPTIMIZED\]$/);
    expect(out.filter((l) => / a: /.test(l))).toEqual([
      expect.stringMatching(/ a: \(add3\+0x0\/0x[0-9a-f]+ \[mylib\]\) x=0x7$/),
    ]);
    expect(r.stderr).toMatch(/^echo: write error: Invalid argument$/m);
    expect(r.status).toBe(1);
  });
});

describe('int3 trace --image <freestanding ELF>', () => {
  it('should boot the sample kernel with the image linked beside it, so workloads run and its symbols probe', () => {
    const r = int3(['trace', '--image', image, '-e', 'p:a add3', '--run', 'hello']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const probes = int3(['probes', 'list', '--image', image, '-e', 'p:a add3', '-e', 'r:f fact']);
    expect(lines(probes.stdout).map((l) => l.replace(/^[0-9a-f]+ +/, ''))).toEqual([
      'k  add3+0x0  mylib [OPTIMIZED]',
      'r  fact+0x0  mylib [OPTIMIZED]',
    ]);
  });

  it('should refuse to record a freestanding image, saying why', () => {
    const r = int3(['record', '-o', join(dir, 'x.log'), '--image', image]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/is not a kernel image: a freestanding ELF is traced with trace, tracefs or call -e/);
  });
});

describe('--image linked where the kernel or nothing may be', () => {
  // The sample kernel's pages and the free parts of the kernel text mapping, as the refusal names them.
  const RELINK =
    /: link it in \[0xffffffff80000000, 0xffffffff81000000\) or \[0xffffffff81[0-9a-f]{3}000, 0xffffffffa0000000\), e\.g\. with -Wl,-Ttext=0xffffffff90000000$/;
  const oneLine = (r: { status: number | null; stderr: string }): [number | null, string] => [
    r.status,
    r.stderr.replace(/ \(see 'int3 \w+ --help'\)\n$/, ''),
  ];

  it('should refuse an image over the sample kernel (the CPU corpus, linked at 0xffffffff81000000) with one line saying where to link it', () => {
    const sample = join(REPO_ROOT, 'packages/cpu/sample/sample.elf');
    const script = join(dir, 'empty.sh');
    writeFileSync(script, '');
    const runs = [
      ['call', '--image', sample, '-e', 'p:t div_s64', 'div_s64', '1', '2'],
      ['trace', '--image', sample, '--run', 'hello'],
      ['tracefs', '--image', sample, '--script', script],
    ].map((args) => int3(args));
    const [status, line] = oneLine(runs[0]);
    expect(status).toBe(2);
    expect(line).toMatch(
      /^int3: bad image: \S*sample\.elf: program header 1 \[0xffffffff81000000, 0xffffffff81[0-9a-f]+\) overlaps the kernel \[0xffffffff81000000, 0xffffffff81[0-9a-f]{3}000\): /,
    );
    expect(line).toMatch(RELINK);
    expect(line.split('\n')).toHaveLength(1);
    for (const r of runs.slice(1)) expect(oneLine(r)).toEqual([2, line]);
    // Without -e the same file runs alone, as int3 call always ran it.
    expect(int3(['call', '--image', sample, 'div_s64', '--', '-100', '7']).stdout).toBe(
      'return: 18446744073709551602\n',
    );
  }, 180_000);

  it('should refuse an image linked outside the kernel text mapping (a user-space link) with the same hint', () => {
    const user = join(dir, 'user.elf');
    execFileSync('gcc', [
      ...FLAGS.filter((f) => !f.startsWith('-Wl,-Ttext') && f !== '-mcmodel=kernel'),
      '-o',
      user,
      join(dir, 'mylib.c'),
      '-lgcc',
    ]);
    const [status, line] = oneLine(int3(['call', '--image', user, '-e', 'p:t add3', 'add3', '1', '2', '3']));
    expect(status).toBe(2);
    expect(line).toMatch(
      /^int3: bad image: \S*user\.elf: program header \d \[0x4[0-9a-f]+, 0x4[0-9a-f]+\) is outside the kernel text mapping \[0xffffffff80000000, 0xffffffffa0000000\): /,
    );
    expect(line).toMatch(RELINK);
    expect(oneLine(int3(['trace', '--image', user]))).toEqual([2, line]);
  }, 180_000);
});

describe('boosting on a freestanding image', () => {
  // fact's instructions (gcc -O1): +0x5 cmp $1,%rdi (boostable; the jg 4 bytes on keeps the optimizer
  // off it), +0x9 the jg (never boosted: a jump is single-stepped so its target is fixed up), +0xc
  // push %rbx (the start of 5 bytes with no jump: optimizable). fact(5) reaches +0x5 and +0x9 five
  // times, +0xc four.
  const at = (off: string) => {
    const disasm = lines(int3(['disasm', '--image', image, 'fact']).stdout).slice(1);
    const first = BigInt(`0x${disasm[0].trim().split(':')[0]}`);
    return disasm.map((l) => l.trim().split(/:\s+/)).find(([a]) => BigInt(`0x${a}`) - first === BigInt(off))![1];
  };
  const call = (def: string) => JSON.parse(int3(['call', '--json', '--image', image, '-e', def, 'fact', '5']).stdout);
  const events = (r: { trace: { type: string }[] }) => r.trace.filter((x) => x.type === 'event').length;

  it('should single-step a boostable probe once, then run it boosted: one #BP per hit and one #DB in all', () => {
    expect(at('0x5')).toMatch(/ cmp \$1,%rdi$/);
    const boosted = call('p:t fact+0x5');
    expect([boosted.return, events(boosted), boosted.traps]).toEqual(['120', 5, { '#BP': 5, '#DB': 1 }]);
  }, 180_000);

  it('should single-step a probe on a jump at every hit', () => {
    expect(at('0x9')).toMatch(/ jg 0x/);
    const stepped = call('p:j fact+0x9');
    expect([stepped.return, events(stepped), stepped.traps]).toEqual(['120', 5, { '#BP': 5, '#DB': 5 }]);
  }, 180_000);

  it('should send the int3 hits of a probe queued for optimization to its detour buffer, with no single-step', () => {
    // Registering marks the probe optimized and queues it; the optimizer writes the jump OPTIMIZE_DELAY
    // jiffies later, after this short call, so each hit meets the int3 and setup_detour_execution
    // sends it to the detour buffer (kernel/kprobes.c optimize_kprobe, x86 opt setup_detour_execution).
    expect(at('0xc')).toMatch(/ push %rbx$/);
    const queued = call('p:t fact+0xc');
    expect([queued.return, events(queued), queued.traps]).toEqual(['120', 4, { '#BP': 4, '#DB': 0 }]);
  }, 180_000);

  it('should count the boosted hits in kprobe_profile and list the probe with its module', () => {
    const script = [
      "echo 'p:t fact+0x5' > kprobe_events",
      'echo 1 > events/kprobes/t/enable',
      'cat /sys/kernel/debug/kprobes/list',
      'call fact 5',
      'call fact 3',
      'cat kprobe_profile',
    ].join('\n');
    const r = int3(['tracefs', '--image', image], script);
    expect(r.stderr).toBe('');
    expect(lines(r.stdout)).toEqual([
      expect.stringMatching(/^ffffffff9[0-9a-f]{7} {2}k {2}fact\+0x5 {2}mylib $/),
      'return: 120',
      'return: 6',
      expect.stringMatching(/^ {2}t +8 +0$/),
    ]);
  });
});

describe('a probe never changes what a function computes (through int3 call --image … -e)', () => {
  it('should return the same value with a kprobe at any instruction boundary of the function', () => {
    // The boundaries, from int3's own disassembler.
    const boundaries = (fn: string) =>
      lines(int3(['disasm', '--image', image, fn]).stdout)
        .slice(1)
        .map((l) => l.trim().split(':')[0]);
    const sites = ['mix', 'fact', 'add3'].flatMap((fn) => {
      const addrs = boundaries(fn);
      return addrs.map((a) => [fn, Number(BigInt(`0x${a}`) - BigInt(`0x${addrs[0]}`))] as const);
    });
    const args: Record<string, readonly string[]> = { mix: ['1234', '9'], fact: ['6'], add3: ['5', '-7', '9'] };
    const plain = new Map(
      Object.entries(args).map(([fn, a]) => [fn, int3(['call', '--image', image, fn, ...a]).stdout]),
    );
    // One run: probes at a few boundaries of one function (and maybe a return probe), all in one call.
    const run = fc.constantFrom('mix', 'fact', 'add3').chain((fn) =>
      fc.record({
        fn: fc.constant(fn),
        offsets: fc.uniqueArray(fc.constantFrom(...sites.filter(([f]) => f === fn).map(([, off]) => off)), {
          minLength: 1,
          maxLength: 4,
        }),
        ret: fc.boolean(),
      }),
    );
    fc.assert(
      fc.property(run, ({ fn, offsets, ret }) => {
        const defs = offsets.map((off, i) => `p:t${i} ${fn}+${off}`);
        if (ret) defs.push(`r:rt ${fn} v=$retval`);
        const r = int3(['call', '--image', image, ...defs.flatMap((d) => ['-e', d]), fn, ...args[fn]]);
        expect(r.stderr).toBe('');
        expect(records(r.stdout).length).toBeGreaterThanOrEqual(defs.length);
        expect(lines(r.stdout).at(-1)).toBe(lines(plain.get(fn)!).at(-1));
      }),
      { numRuns: 4, seed: 1414 },
    );
    // Each run boots a machine in a new process: minutes, not seconds, on a loaded machine.
  }, 300_000);
});

describe('--image loader errors', () => {
  const vmlinux = () => readFileSync(join(REPO_ROOT, 'packages/kernel/image/vmlinux'));
  const flip = (b: Uint8Array, at: number, v: number) => {
    const c = Uint8Array.from(b);
    c[at] = v;
    return c;
  };
  const elf = () => readFileSync(image);
  const mutants: readonly (readonly [string, () => Uint8Array])[] = [
    ['empty', () => new Uint8Array(0)],
    ['not-elf', () => new TextEncoder().encode('#!/bin/sh\necho hi\n')],
    ['trunc-half', () => elf().subarray(0, elf().length >> 1)],
    ['i386', () => flip(elf(), 18, 3)],
    ['rel', () => flip(elf(), 16, 1)],
    ['vmlinux-trunc', () => vmlinux().subarray(0, 4096)],
    ['vmlinux-shentsize', () => flip(vmlinux(), 58, 191)],
  ];

  it.each(mutants.map(([name]) => name))(
    'should give %s the same one-line error in call, tracefs and trace',
    (name) => {
      const file = join(dir, name);
      writeFileSync(file, mutants.find(([n]) => n === name)![1]());
      const call = int3(['call', '--image', file, 'add3']);
      const line = call.stderr.replace(/ \(see 'int3 call --help'\)\n$/, '');
      expect(call.status).toBe(2);
      expect(line).not.toMatch(/internal error/);
      expect(line).toMatch(/^(int3: )?(bad image: |image ')/);
      const script = join(dir, 'empty.sh');
      writeFileSync(script, '');
      const others = [
        ['tracefs', '--image', file, '--script', script],
        ['trace', '--image', file],
      ];
      if (name === 'i386') others.push(['call', '--image', file, '-e', 'p add3', 'add3']);
      for (const args of others) {
        const r = int3(args);
        expect([r.status, r.stderr.replace(/ \(see 'int3 \w+ --help'\)\n$/, '')], args[0]).toEqual([2, line]);
      }
    },
  );
});
