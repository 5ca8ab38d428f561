// End-to-end tests of the `int3` binary: they spawn `node packages/cli/dist/bin.js`, so they need a
// build. `npm test` runs `tsc -b` before any package's tests, so dist/ exists here; when running this
// file alone, build first with `./node_modules/.bin/tsc -b` from the repository root.
// The guest image is compiled at test time with the kernel flags (gcc is on every machine).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sampleElfUrl } from '@int3/cpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

const KERNEL_FLAGS = [
  '-O2',
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
  '-Wl,-Ttext=0xffffffff81000000',
  '-Wl,--build-id=none',
];

const SOURCE = `
long add3(long a, long b, long c) { return a + b + c; }
unsigned long count_char(const char *s, char c) { unsigned long n = 0; for (; *s; s++) n += *s == c; return n; }
long fill_sum(unsigned char *p, long n) { long sum = 0; for (long i = 0; i < n; i++) { sum += p[i]; p[i] = 1; }
  for (long i = 0; i < n; i++) sum += p[i]; return sum; }
long deref(long *p) { return *p; }
void poke(long *p) { *p = 1; }
void boom(void) { __builtin_trap(); }
long divide(long a, long b) { return a / b; }
long spin(long n) { for (volatile long i = 0; i < n; i++) {} return n; }
long table[2] = { 1, 2 };
void _start(void) {}
`;

let dir: string;
let image: string;

function int3(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function call(...args: string[]) {
  return int3('call', '--image', image, ...args);
}

/** A failure is exactly one line on stderr, nothing on stdout, and never a stack trace. */
function expectOneLineError(r: ReturnType<typeof int3>, status: number, line: RegExp): void {
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(line);
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.status).toBe(status);
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'int3-cli-'));
  writeFileSync(join(dir, 't.c'), SOURCE);
  image = join(dir, 't.elf');
  execFileSync('gcc', [...KERNEL_FLAGS, '-o', image, join(dir, 't.c'), '-lgcc']);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('int3 call', () => {
  it('should print the return value as an unsigned decimal', () => {
    const r = call('add3', '1', '2', '0x10');
    expect(r).toEqual({ status: 0, stdout: 'return: 19\n', stderr: '' });
  });

  it("should pass negative arguments as two's complement and print rax unsigned", () => {
    expect(call('add3', '-5', '2', '0').stdout).toBe('return: 18446744073709551613\n');
  });

  it('should pass str: as a pointer to a NUL-terminated copy', () => {
    expect(call('count_char', 'str:hello world', `${'l'.charCodeAt(0)}`).stdout).toBe('return: 3\n');
  });

  it('should pass buf: as a pointer to writable zero bytes', () => {
    expect(call('fill_sum', 'buf:100', '100').stdout).toBe('return: 100\n');
  });

  it('should print one JSON object with --json', () => {
    const r = call('--json', 'add3', '1', '2', '3');
    expect(r.status).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json.return).toBe('6');
    expect(json.instructions).toBeGreaterThanOrEqual(2);
    expect(Object.keys(json)).toEqual(['return', 'instructions']);
  });

  it('should report a page fault as one line with symbol, cr2 and error code, and exit 1', () => {
    expectOneLineError(
      call('deref', '0'),
      1,
      /^int3: guest fault: #PF at rip=0xffffffff81[0-9a-f]{6} \(deref\+0x0\/0x[0-9a-f]+\) cr2=0x0 error=0x0 /,
    );
    expectOneLineError(
      call('poke', '0x10'),
      1,
      /^int3: guest fault: #PF at rip=.* \(poke\+0x0\/.*\) cr2=0x10 error=0x2 /,
    );
  });

  it('should report #UD with the bytes and mnemonic', () => {
    expectOneLineError(
      call('boom'),
      1,
      /^int3: guest fault: #UD at rip=.* \(boom\+0x0\/0x[0-9a-f]+\) bytes=0f 0b mnemonic=ud2/,
    );
  });

  it('should report #DE with the faulting instruction', () => {
    expectOneLineError(
      call('divide', '1', '0'),
      1,
      /^int3: guest fault: #DE at rip=.* \(divide\+0x[0-9a-f]+\/.*\) insn=".*idiv/,
    );
  });

  it('should stop at --max-insns and exit 1 saying so', () => {
    expectOneLineError(call('--max-insns', '1000', 'spin', '1000000000'), 1, /--max-insns 1000 exhausted at rip=/);
  });

  it('should refuse a bad argument with exit 2 and a help hint', () => {
    expectOneLineError(call('add3', 'zz'), 2, /^int3: bad argument 'zz': .* \(see 'int3 call --help'\)$/m);
    expectOneLineError(call('add3', '1', '2', '3', '4', '5', '6', '7'), 2, /too many arguments \(7\); at most 6/);
    expectOneLineError(call('--max-insns', 'lots', 'add3'), 2, /bad --max-insns 'lots'/);
  });

  it('should refuse a missing or corrupt image with exit 2 and a clear message', () => {
    const missing = join(dir, 'nope.elf');
    expectOneLineError(
      int3('call', '--image', missing, 'add3'),
      2,
      new RegExp(`cannot read image '${missing}': no such file`),
    );
    const corrupt = join(dir, 'corrupt.elf');
    writeFileSync(corrupt, '#!/bin/sh\n');
    expectOneLineError(int3('call', '--image', corrupt, 'add3'), 2, /bad image: .*corrupt\.elf: not an ELF file/);
    const object = join(dir, 't.o');
    execFileSync('gcc', ['-c', '-O2', '-o', object, join(dir, 't.c')]);
    expectOneLineError(int3('call', '--image', object, 'add3'), 2, /is a relocatable object \(ET_REL\); link it/);
  });

  it('should refuse an unknown symbol with exit 2, suggesting the nearest names', () => {
    expectOneLineError(call('add', '1'), 2, /unknown symbol 'add' in .*; did you mean add3\?/);
    expectOneLineError(call('table'), 2, /'table' is a data object, not a function/);
  });

  it('should use the sample image without --image', () => {
    const sample = fileURLToPath(sampleElfUrl());
    const r = int3('call', 'div_s64', '-100', '7');
    if (existsSync(sample)) expect(r.stdout).toBe(`return: ${2n ** 64n - 14n}\n`);
    else expectOneLineError(r, 2, /cannot read sample image '.*sample\/sample\.elf': no such file/);
  });
});
