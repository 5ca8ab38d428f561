#!/usr/bin/env node
// `pnpm bench` for @int3/cpu: runs compute workloads from the C corpus (the -O2 sample image,
// sample/sample.elf) in the emulator and natively (bench/native-driver.c, compiled by gcc at bench
// time with the same corpus at -O2), checks both compute the same results, and prints emulated MIPS
// (instructions retired per host second) and the slowdown against the host CPU, one line per workload.
// Every workload runs twice: round 1 is the (timed) warm-up, printed as the cold figure; round 2 is the
// steady state. Needs a build (`tsc -b`): it imports ../dist/index.js. Options: --only <substring>.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AddressSpace, Cpu, loadElf, PageFlags, parseElf, Reg, SymbolTable } from '../dist/index.js';

const PACKAGE = join(dirname(fileURLToPath(import.meta.url)), '..');
const CORPUS = join(PACKAGE, 'corpus');
const SAMPLE = join(PACKAGE, 'sample', 'sample.elf');
const KERNEL_CFLAGS = [
  '-ffreestanding',
  '-mno-red-zone',
  '-mno-sse',
  '-mno-mmx',
  '-mno-sse2',
  '-fno-asynchronous-unwind-tables',
];

const STACK = 0xffffc90000000000n;
const STACK_SIZE = 0x10000;
const GATE = 0xffffc90000100000n;
const BUFFER = 0xffff888000000000n;
const BUFFER_SIZE = 4 << 20;

/**
 * Keep in step with `workloads[]` in native-driver.c: name, buffer bytes, calls and how many times to
 * repeat them (the result of a repeated workload is the 64-bit sum of every call's rax).
 */
const WORKLOADS = [
  { name: 'sort_quick_i64/64Ki', bytes: 65536 * 8, calls: [['sort_quick_i64', BUFFER, 65536n]] },
  { name: 'sort_heap_u16/64Ki', bytes: 65536 * 2, calls: [['sort_heap_u16', BUFFER, 65536n]] },
  { name: 'hash_crc32/256KiB', bytes: 262144, calls: [['hash_crc32', BUFFER, 262144n]] },
  { name: 'hash_crc32_nibble/1MiB', bytes: 1 << 20, calls: [['hash_crc32_nibble', BUFFER, 1n << 20n]] },
  { name: 'hash_fnv1a64/2MiB', bytes: 2 << 20, calls: [['hash_fnv1a64', BUFFER, 2n << 20n]] },
  { name: 'hash_adler32/1MiB', bytes: 1 << 20, calls: [['hash_adler32', BUFFER, 1n << 20n]] },
  {
    name: 'mem_hash_table/2x128x50',
    bytes: 256 * 8,
    repeat: 50,
    calls: [
      ['mem_hash_table', BUFFER, 128n, 7n],
      ['mem_hash_table', BUFFER + 1024n, 128n, 9n],
    ],
  },
  { name: 'rec_fib/16x40', bytes: 0, repeat: 40, calls: [['rec_fib', 16n]] },
];

/** xorshift64 from a fixed seed, 8 little-endian bytes at a time (as native-driver.c fills). */
function fill(bytes) {
  const out = new Uint8Array(bytes);
  const view = new DataView(out.buffer);
  let x = 0x9e3779b97f4a7c15n;
  for (let i = 0; i + 8 <= bytes; i += 8) {
    x ^= BigInt.asUintN(64, x << 13n);
    x ^= x >> 7n;
    x ^= BigInt.asUintN(64, x << 17n);
    view.setBigUint64(i, x, true);
  }
  return out;
}

function buildNativeDriver(dir) {
  const sources = readdirSync(CORPUS)
    .filter((f) => f.endsWith('.c'))
    .sort()
    .map((f) => join(CORPUS, f));
  const corpus = join(dir, 'corpus.o');
  execFileSync('gcc', ['-O2', ...KERNEL_CFLAGS, `-I${CORPUS}`, '-nostdlib', '-r', '-o', corpus, ...sources]);
  const driver = join(dir, 'native-driver');
  execFileSync('gcc', ['-O2', `-I${CORPUS}`, '-o', driver, join(PACKAGE, 'bench', 'native-driver.c'), corpus]);
  return driver;
}

function runNative() {
  const dir = mkdtempSync(join(tmpdir(), 'int3-bench-'));
  try {
    const out = execFileSync(buildNativeDriver(dir), { encoding: 'utf8' });
    const byName = new Map();
    for (const line of out.trim().split('\n')) {
      const [name, result, ns] = line.split(' ');
      byName.set(name, { result: BigInt(`0x${result}`), ns: Number(ns) });
    }
    return byName;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function makeMachine() {
  const space = new AddressSpace();
  const file = parseElf(new Uint8Array(readFileSync(SAMPLE)), SAMPLE);
  loadElf(file, space);
  const symbols = SymbolTable.fromElf(file);
  space.map(STACK, STACK_SIZE, PageFlags.Present | PageFlags.Writable | PageFlags.NoExecute);
  space.map(GATE, 0x1000, PageFlags.Present | PageFlags.Gate);
  space.map(BUFFER, BUFFER_SIZE, PageFlags.Present | PageFlags.Writable | PageFlags.NoExecute);
  return { space, symbols, cpu: new Cpu({ addressSpace: space }) };
}

const ARGS = [Reg.RDI, Reg.RSI, Reg.RDX, Reg.RCX, Reg.R8, Reg.R9];

/** One call in the emulator; returns rax, instructions retired and host nanoseconds. */
function call(machine, name, args) {
  const { cpu, space, symbols } = machine;
  const sym = symbols.lookup(name);
  if (!sym) throw new Error(`sample.elf has no ${name}: rebuild it with sample/build.sh`);
  for (let i = 0; i < args.length; i++) cpu.setReg(ARGS[i], args[i]);
  const sp = STACK + BigInt(STACK_SIZE) - 8n;
  space.writeU64(sp, GATE);
  cpu.setReg(Reg.RSP, sp);
  cpu.rflags = 0x2;
  cpu.rip = sym.address;
  const retired = cpu.retired;
  const t0 = process.hrtime.bigint();
  const result = cpu.run(4e9);
  const ns = Number(process.hrtime.bigint() - t0);
  if (result.reason !== 'gate') {
    throw new Error(`${name}: stopped with ${result.reason} ${result.vector ?? ''} at ${symbols.format(result.rip)}`);
  }
  return { rax: cpu.getReg(Reg.RAX), retired: cpu.retired - retired, ns };
}

function runEmulated(machine, w) {
  if (w.bytes > 0) machine.space.write(BUFFER, fill(w.bytes));
  let value = 0n;
  let retired = 0;
  let ns = 0;
  for (let i = 0; i < (w.repeat ?? 1); i++) {
    for (const [name, ...args] of w.calls) {
      const r = call(machine, name, args);
      value = BigInt.asUintN(64, value + r.rax);
      retired += r.retired;
      ns += r.ns;
    }
  }
  return { value, retired, ns };
}

const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : '';
const workloads = WORKLOADS.filter((w) => w.name.includes(only));
const native = runNative();
const machine = makeMachine();

/** Runs every workload once; returns one row per workload and whether all results matched the host. */
function round() {
  const rows = [];
  for (const w of workloads) {
    const emulated = runEmulated(machine, w);
    const host = native.get(w.name);
    // Results are compared in the width the C function returns (upper rax bits are undefined for u32).
    const width = /crc32|adler32/.test(w.name) ? 32 : 64;
    const same = host && BigInt.asUintN(width, host.result) === BigInt.asUintN(width, emulated.value);
    rows.push({ w, emulated, host, same });
  }
  return rows;
}

const mips = (retired, ns) => retired / (ns / 1e3);
// Round 1 (cold) starts from a fresh JIT and empty decode caches: it is the warm-up round, timed only to
// show the cold figure. Round 2 (steady state) reruns every workload on the warmed-up interpreter.
const cold = round();
const steady = round();

console.log(`@int3/cpu bench: corpus workloads at -O2 (sample/sample.elf), emulator vs host (gcc -O2)`);
console.log(`cold = round 1 (fresh JIT, warm-up round); steady = round 2 (after every workload ran once)`);
console.log(
  `${'workload'.padEnd(24)} ${'instructions'.padStart(13)} ${'cold MIPS'.padStart(10)} ${'steady'.padStart(10)} ${'MIPS'.padStart(7)} ${'native'.padStart(10)} ${'slowdown'.padStart(9)}  result`,
);
const total = { retired: 0, coldNs: 0, ns: 0, native: 0 };
let mismatches = 0;
for (let k = 0; k < steady.length; k++) {
  const { w, emulated, host, same } = steady[k];
  const c = cold[k];
  if (!same || !c.same) mismatches++;
  total.retired += emulated.retired;
  total.coldNs += c.emulated.ns;
  total.ns += emulated.ns;
  total.native += host?.ns ?? 0;
  const result =
    same && c.same ? 'ok' : `MISMATCH host=0x${host?.result.toString(16)} emulator=0x${emulated.value.toString(16)}`;
  console.log(
    `${w.name.padEnd(24)} ${emulated.retired.toLocaleString('en-US').padStart(13)} ${mips(c.emulated.retired, c.emulated.ns).toFixed(1).padStart(10)} ${(emulated.ns / 1e6).toFixed(1).padStart(8)}ms ${mips(emulated.retired, emulated.ns).toFixed(1).padStart(7)} ${((host?.ns ?? 0) / 1e6).toFixed(3).padStart(8)}ms ${`${(emulated.ns / (host?.ns ?? 1)).toFixed(0)}x`.padStart(9)}  ${result}`,
  );
}
console.log(
  `${'total'.padEnd(24)} ${total.retired.toLocaleString('en-US').padStart(13)} ${mips(total.retired, total.coldNs).toFixed(1).padStart(10)} ${(total.ns / 1e6).toFixed(1).padStart(8)}ms ${mips(total.retired, total.ns).toFixed(1).padStart(7)} ${(total.native / 1e6).toFixed(3).padStart(8)}ms ${`${(total.ns / total.native).toFixed(0)}x`.padStart(9)}`,
);
console.log(
  `emulated: cold ${mips(total.retired, total.coldNs).toFixed(1)} MIPS, steady state ${mips(total.retired, total.ns).toFixed(1)} MIPS (target >= 40 MIPS on -O2 code)`,
);
if (mismatches > 0) {
  console.error(`${mismatches} workload(s) computed a different result in the emulator`);
  process.exitCode = 1;
}
