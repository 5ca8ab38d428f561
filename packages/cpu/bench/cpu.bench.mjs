#!/usr/bin/env node
// `pnpm bench` for @int3/cpu: runs compute workloads from the C corpus (the -O2 sample image,
// sample/sample.elf) in the emulator and natively (bench/native-driver.c, compiled by gcc at bench
// time with the same corpus at -O2), checks both compute the same results, and prints emulated MIPS
// (instructions retired per host second) and the slowdown against the host CPU, one line per workload,
// for both engines side by side: the interpreter (`jit: false`) and the block compiler (`jit: true`).
// Each engine runs in a process of its own (the bench runs itself with --engine), and every workload
// twice: round 1 is the (timed) warm-up, printed as the cold figure (a fresh process: for the compiler,
// compile time and V8's optimization of everything included); round 2 is the steady state. Then where the compiler's time
// went. Needs a build (`tsc -b`): it imports ../dist/index.js. Options: --only <substring>; --rounds N
// (N > 2) runs the compiler's machine N - 2 rounds more and prints each (V8 still optimizes the
// generated code during round 2: later rounds show where it settles); --jit-only runs the compiler's
// rounds alone (no interpreter, no RSS benches), for quicker A/B runs; --jit-options '<json>' sets the
// compiler's options (BlockCompilerOptions); --v8 also says what V8's optimizing compiler did with the
// compiler's process (how often and how long it compiled and deoptimized which functions; tracing it
// slows that process a little).
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

function makeMachine(jit) {
  const space = new AddressSpace();
  const file = parseElf(new Uint8Array(readFileSync(SAMPLE)), SAMPLE);
  loadElf(file, space);
  const symbols = SymbolTable.fromElf(file);
  space.map(STACK, STACK_SIZE, PageFlags.Present | PageFlags.Writable | PageFlags.NoExecute);
  space.map(GATE, 0x1000, PageFlags.Present | PageFlags.Gate);
  space.map(BUFFER, BUFFER_SIZE, PageFlags.Present | PageFlags.Writable | PageFlags.NoExecute);
  return { space, symbols, cpu: new Cpu({ addressSpace: space, jit }) };
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

const arg = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const only = arg('--only') ?? '';
const workloads = WORKLOADS.filter((w) => w.name.includes(only));
const rounds = Number(arg('--rounds') ?? 2);
// --jit-options '<json>' passes BlockCompilerOptions (thresholds, region limits) to the compiler's CPU.
const jitOptions = arg('--jit-options') === undefined ? true : JSON.parse(arg('--jit-options'));

/** Runs every workload once on `machine`; one row per workload. */
function round(machine) {
  return workloads.map((w) => ({ w, emulated: runEmulated(machine, w) }));
}

// --engine interp|jit (what the bench runs itself as): that engine's rounds on a fresh CPU, as JSON
// on stdout. Each engine runs in a process of its own, so its cold round is cold for V8 too: nothing
// the other engine ran before has optimized the code both share (the run loop, the memory paths).
const engineName = arg('--engine');
/** What starts the line of an engine's JSON among what else its process prints (V8's traces, with --v8). */
const RESULT = '@int3-bench-result ';
if (engineName !== undefined) {
  const machine = makeMachine(engineName === 'jit' ? jitOptions : false);
  const out = [];
  let stats = {};
  for (let r = 0; r < (engineName === 'jit' ? Math.max(rounds, 2) : 2); r++) {
    out.push(
      round(machine).map(({ w, emulated }) => ({ name: w.name, ...emulated, value: emulated.value.toString(16) })),
    );
    // The compiler's counters as of the two rounds the table shows.
    if (r === 1) stats = { ...machine.cpu.jit?.stats };
  }
  process.stdout.write(`\n${RESULT}${JSON.stringify({ rounds: out, stats })}\n`);
  process.exit(0);
}

const native = runNative();
/** One engine's rounds, run in a child process (see --engine), each row compared with the host's result. */
function engine(name) {
  // --v8: the compiler's process traces V8's optimizing compiler, summed up by v8Summary.
  const trace = name === 'jit' && process.argv.includes('--v8') ? ['--trace-opt-verbose', '--trace-deopt'] : [];
  const args = [...trace, fileURLToPath(import.meta.url), '--engine', name, ...process.argv.slice(2)];
  const output = execFileSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  const lines = output.split('\n');
  const res = JSON.parse(lines.find((l) => l.startsWith(RESULT)).slice(RESULT.length));
  const rows = res.rounds.map((r) =>
    r.map((e, k) => {
      const w = workloads[k];
      const host = native.get(w.name);
      const emulated = { retired: e.retired, ns: e.ns, value: BigInt(`0x${e.value}`) };
      // Results are compared in the width the C function returns (upper rax bits are undefined for u32).
      const width = /crc32|adler32/.test(w.name) ? 32 : 64;
      const same = host !== undefined && BigInt.asUintN(width, host.result) === BigInt.asUintN(width, emulated.value);
      return { w, emulated, host, same };
    }),
  );
  return {
    cold: rows[0],
    steady: rows[1],
    later: rows.slice(2),
    stats: res.stats,
    v8: trace.length > 0 ? v8Summary(lines) : null,
  };
}
const mips = (retired, ns) => retired / (ns / 1e3);

/**
 * What V8's optimizing compiler did in the compiler's process (`--trace-opt-verbose --trace-deopt`
 * lines), by kind of function: the compiled regions (each a `region`), the run loop, the interpreter's
 * handlers (`op…`, see interpreter-handlers.ts), the rest. TurboFan runs on a thread of its own: its
 * time overlaps the run, which meanwhile runs the function unoptimized.
 */
function v8Summary(lines) {
  const kinds = ['regions', 'the run loop', "the interpreter's handlers", 'the rest'];
  const kindOf = (fn) => (fn === 'region' ? 0 : fn === 'loop' ? 1 : /^op[A-Z]/.test(fn) ? 2 : 3);
  const by = kinds.map(() => ({ compiles: 0, osr: 0, ms: 0, deopts: 0 }));
  for (const line of lines) {
    const c =
      /^\[(?:completed compiling|aborted optimizing) \S+ <JSFunction (\S*) .*?(OSR)?(?: because.*)? - took [\d.]+, ([\d.]+), [\d.]+ ms\]/.exec(
        line,
      );
    if (c !== null) {
      const k = by[kindOf(c[1])];
      k.compiles++;
      if (c[2] !== undefined) k.osr++;
      k.ms += Number(c[3]);
      continue;
    }
    const d = /^\[bailout \(kind: [^,]+, reason: .*\): begin\. deoptimizing \S+ <JSFunction (\S*) /.exec(line);
    if (d !== null) by[kindOf(d[1])].deopts++;
  }
  const parts = by.map(
    (k, i) =>
      `${kinds[i]} ${k.compiles} times (${k.osr} on stack replacement) in ${k.ms.toFixed(0)} ms, deoptimized ${k.deopts}`,
  );
  return `V8 in the compiler's process, all its rounds (TurboFan, on a thread of its own): ${parts.join('; ')}`;
}
// --jit-only skips the interpreter (its columns print as 0): quicker A/B runs of the compiler.
const jitOnly = process.argv.includes('--jit-only');
const interp = jitOnly ? { cold: [], steady: [] } : engine('interp');
const jit = engine('jit');
if (jitOnly) {
  const none = { emulated: { retired: 0, ns: 1, value: 0n }, same: true };
  for (let k = 0; k < workloads.length; k++) {
    interp.cold.push({ ...none, w: workloads[k] });
    interp.steady.push({ ...none, w: workloads[k] });
  }
}

console.log(`@int3/cpu bench: corpus workloads at -O2 (sample/sample.elf), emulator vs host (gcc -O2)`);
console.log(
  `cold = round 1 (a fresh process and CPU, the compiler's compile time included); steady = round 2 (after every workload ran once); MIPS = instructions retired per host µs`,
);
console.log(
  `${'workload'.padEnd(24)} ${'instructions'.padStart(13)} ${'interp cold'.padStart(12)} ${'steady'.padStart(7)} ${'jit cold'.padStart(9)} ${'steady'.padStart(7)} ${'native'.padStart(9)} ${'interp ×'.padStart(9)} ${'jit ×'.padStart(6)}  result`,
);
const sum = () => ({ retired: 0, ns: 0 });
const total = { ic: sum(), is: sum(), jc: sum(), js: sum(), native: 0 };
let mismatches = 0;
const add = (t, e) => {
  t.retired += e.retired;
  t.ns += e.ns;
};
for (let k = 0; k < workloads.length; k++) {
  const rows = [interp.cold[k], interp.steady[k], jit.cold[k], jit.steady[k]];
  const { w, host } = rows[3];
  const same = rows.every((r) => r.same);
  if (!same) mismatches++;
  add(total.ic, rows[0].emulated);
  add(total.is, rows[1].emulated);
  add(total.jc, rows[2].emulated);
  add(total.js, rows[3].emulated);
  total.native += host?.ns ?? 0;
  const m = rows.map((r) => mips(r.emulated.retired, r.emulated.ns).toFixed(0));
  const ratio = (r) => `${(r.emulated.ns / (host?.ns ?? 1)).toFixed(1)}x`;
  const result = same
    ? 'ok'
    : `MISMATCH host=0x${host?.result.toString(16)} emulator=0x${rows.map((r) => r.emulated.value.toString(16)).join('/')}`;
  console.log(
    `${w.name.padEnd(24)} ${rows[3].emulated.retired.toLocaleString('en-US').padStart(13)} ${m[0].padStart(12)} ${m[1].padStart(7)} ${m[2].padStart(9)} ${m[3].padStart(7)} ${`${((host?.ns ?? 0) / 1e6).toFixed(2)}ms`.padStart(9)} ${ratio(rows[1]).padStart(9)} ${ratio(rows[3]).padStart(6)}  ${result}`,
  );
}
const tm = (t) => mips(t.retired, t.ns).toFixed(0);
console.log(
  `${'total'.padEnd(24)} ${total.js.retired.toLocaleString('en-US').padStart(13)} ${tm(total.ic).padStart(12)} ${tm(total.is).padStart(7)} ${tm(total.jc).padStart(9)} ${tm(total.js).padStart(7)} ${`${(total.native / 1e6).toFixed(2)}ms`.padStart(9)} ${`${(total.is.ns / total.native).toFixed(1)}x`.padStart(9)} ${`${(total.js.ns / total.native).toFixed(1)}x`.padStart(6)}`,
);
console.log(
  `interpreter: cold ${tm(total.ic)} MIPS, steady ${tm(total.is)} MIPS; compiler: cold ${tm(total.jc)} MIPS, steady ${tm(total.js)} MIPS (${(total.js.ns / total.native).toFixed(1)}× native; targets: >= 1000 steady, >= 300 cold)`,
);
const st = jit.stats;
const retiredAll = total.jc.retired + total.js.retired;
console.log(
  `compiler, both rounds: ${st.compiled} regions of ${st.blocks} basic blocks compiled (${st.wasm} to WebAssembly, ${st.compiled - st.wasm} to JavaScript; ${st.generated} from new source, ${st.compiled - st.generated} from the cache) in ${st.compileMs.toFixed(1)} ms (generating the code and compiling it: new Function, or new WebAssembly.Module and its instance; V8's own optimization of either is not in it), ${st.refused} heads refused, ${st.evicted} evicted, ${st.inner} inner entries (heads inside a region, interpreted to its next entry), ${st.widened} regions compiled again with them as entries; ${st.entries.toLocaleString('en-US')} regions run, ${st.chained.toLocaleString('en-US')} of them chained straight from another, ${st.exits.toLocaleString('en-US')} returns to the run loop, ${st.gates.toLocaleString('en-US')} gates reached in compiled code, ${((st.retired / retiredAll) * 100).toFixed(2)}% of instructions retired in compiled code, ${(retiredAll - st.retired).toLocaleString('en-US')} interpreted`,
);

if (jit.v8 !== null) console.log(jit.v8);

for (let r = 3; r <= rounds; r++) {
  const rows = jit.later[r - 3];
  const t = sum();
  for (const row of rows) add(t, row.emulated);
  console.log(
    `compiler, round ${r}: ${tm(t)} MIPS (${(t.ns / total.native).toFixed(1)}× native); ${rows.map((row) => `${row.w.name.split('/')[0]} ${mips(row.emulated.retired, row.emulated.ns).toFixed(0)}`).join(', ')}`,
  );
}

// Bounded compiled code. (1) A hot loop whose immediate is rewritten 20,000 times: each write kills the
// region compiled from it; a page whose regions were killed 64 times is no longer compiled. (2) 2,000
// hot loops on 2,000 pages with room for 256 regions: the oldest are evicted. RSS before and after each.
if (!jitOnly) {
  const loop = Uint8Array.of(0x83, 0xc0, 0x01, 0x49, 0xff, 0xcf, 0x75, 0xf8, 0xf4); // add eax, imm8; dec r15; jnz; hlt
  const space = new AddressSpace();
  const CODE = 0x400000n;
  const PAGES = 2000;
  space.map(CODE, 4096 * PAGES, PageFlags.Present | PageFlags.Writable | PageFlags.User);
  for (let p = 0; p < PAGES; p++) space.write(CODE + BigInt(p * 4096), loop);
  const cpu = new Cpu({ addressSpace: space, jit: { threshold: 1, maxRegions: 256 } });
  const go = (page) => {
    cpu.rip = CODE + BigInt(page * 4096);
    cpu.setReg(15, 50n);
    cpu.run(1e6);
  };
  const mib = () => {
    globalThis.gc?.();
    return (process.memoryUsage().rss / 2 ** 20).toFixed(0);
  };
  for (let k = 0; k < 2000; k++) {
    space.writeU8(CODE + 2n, k & 0x7f);
    go(0);
  }
  const a0 = mib();
  for (let k = 0; k < 20000; k++) {
    space.writeU8(CODE + 2n, k & 0x7f);
    go(0);
  }
  const a1 = mib();
  const compiled = cpu.jit.stats.compiled;
  for (let p = 1; p < PAGES; p++) go(p);
  const b0 = mib();
  for (let r = 0; r < 4; r++) for (let p = 1; p < PAGES; p++) go(p);
  const b1 = mib();
  console.log(
    `bounded: 20,000 rewrites of a hot loop: RSS ${a0} -> ${a1} MiB (${compiled} regions compiled, then the page is left to the interpreter); ${PAGES - 1} loops on as many pages, 5 rounds, 256 regions at most: RSS ${b0} -> ${b1} MiB, ${cpu.jit.stats.evicted.toLocaleString('en-US')} evicted, ${cpu.jit.liveRegions()} live`,
  );
}

if (mismatches > 0) {
  console.error(`${mismatches} workload(s) computed a different result in the emulator`);
  process.exitCode = 1;
}
