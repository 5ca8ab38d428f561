#!/usr/bin/env node
// Runs FEX-Emu's unittests/ASM integer tests on this CPU and counts what passes.
//
//   node packages/cpu/test/fex/run-fex-asm.mjs <FEX checkout> [--verbose] [--only SUBSTRING] [--jit off|THRESHOLD]
//
// FEX-Emu (MIT) keeps NASM snippets whose header (`%ifdef CONFIG { … } %endif`) gives the registers
// expected at the end. This script is not part of `npm test` (it needs a FEX checkout and nasm): it
// takes the 64-bit tests that expect only general-purpose registers and whose code uses no SSE, x87,
// MMX or AVX register, assembles each as FEX's build does (`BITS 64` prepended, `ret` appended,
// `nasm -f bin`), maps what FEX's harness maps (the code at 0x10000; 0xe0000000, ten pages;
// 0xe8000000 - 4096, two pages; the test's MemoryRegions and MemoryData), runs it to its `hlt` (or
// its final `ret`, to a return address on a stack of its own) and compares the registers. Each test
// ends as `pass`, `ud` (a #UD: an instruction outside the supported set), `wrong` (some register
// differs) or `other` (another exception or the budget). Nothing of FEX's is copied here: the tests
// are read from the checkout given.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { CpuidFeature, Decoder, DecoderOptions, FastFormatter, Register } from 'iced-x86';
import { AddressSpace, Cpu, PageFlags, Reg } from '../../dist/index.js';

const args = process.argv.slice(2);
const root = args.find((a) => !a.startsWith('--') && !['--only', '--jit'].includes(args[args.indexOf(a) - 1]));
if (!root) {
  console.error('usage: run-fex-asm.mjs <FEX checkout> [--verbose] [--only SUBSTRING]');
  process.exit(2);
}
const verbose = args.includes('--verbose');
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
// The block compiler: the CPU's default, off, or compiling every block head reached THRESHOLD times.
const jitArg = args.includes('--jit') ? args[args.indexOf('--jit') + 1] : undefined;
const jit = jitArg === undefined ? undefined : jitArg === 'off' ? false : { threshold: Number(jitArg) };
const asmDir = join(root, 'unittests/ASM');
const includes = join(asmDir, 'Includes/');

const GPRS = [
  'RAX',
  'RCX',
  'RDX',
  'RBX',
  'RSP',
  'RBP',
  'RSI',
  'RDI',
  'R8',
  'R9',
  'R10',
  'R11',
  'R12',
  'R13',
  'R14',
  'R15',
];
const CODE = 0x10000n;
const STACK_TOP = 0x7fff0000n;
const RETURN_TO = 0x7fff1000n; // a page holding one hlt: where the appended `ret` returns

function* asmFiles(dir) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* asmFiles(p);
    else if (name.endsWith('.asm')) yield p;
  }
}

/** The test's CONFIG header as JSON, or undefined. */
function config(text) {
  const at = text.indexOf('%ifdef CONFIG');
  if (at < 0) return undefined;
  const end = text.indexOf('%endif', at);
  try {
    return JSON.parse(text.slice(at + '%ifdef CONFIG'.length, end));
  } catch {
    return undefined;
  }
}

/** FEX's hex string: space-separated numbers, each written little-endian. */
function hexBytes(s) {
  const out = [];
  for (let num of s.split(' ')) {
    if (num.startsWith('0x')) num = num.slice(2);
    while (num.length > 0) {
      out.push(Number.parseInt(num.slice(-2), 16));
      num = num.slice(0, -2);
    }
  }
  return out;
}

/** CPUID features of floating-point and vector instructions (x87, MMX, SSE, AVX, 3DNow!, …). */
const VECTOR_FEATURE =
  /^(FPU|MMX|SSE|AVX|D3NOW|F16C|FMA|XOP|KNC|AMX|SHA|AES|PCLMUL|VPCLMUL|GFNI|VAES|FXSR|XSAVE|CMOV_FPU|EMMI)/;

/**
 * True when the binary, decoded linearly, names an x87, MMX, XMM, YMM or ZMM register or has an
 * instruction of a floating-point or vector extension (an x87 load names no register).
 */
function usesVectorRegisters(bin) {
  const d = new Decoder(64, bin, DecoderOptions.None);
  d.ip = CODE;
  try {
    while (d.canDecode) {
      const ins = d.decode();
      if (!ins.isInvalid && ins.cpuidFeatures().some((f) => VECTOR_FEATURE.test(CpuidFeature[f]))) return true;
      for (let i = 0; i < ins.opCount; i++) {
        if (ins.opKind(i) !== 0 /* OpKind.Register */) continue;
        const r = ins.opRegister(i);
        if (r >= Register.XMM0 || (r >= Register.ST0 && r <= Register.ST7) || (r >= Register.MM0 && r <= Register.MM7))
          return true;
      }
      ins.free();
    }
  } finally {
    d.free();
  }
  return false;
}

const tmp = mkdtempSync(join(tmpdir(), 'int3-fex-'));
const counts = { pass: 0, ud: 0, wrong: 0, other: 0 };
const skipped = { mode32: 0, vectorRegs: 0, noConfig: 0, features: 0, nasm: 0 };
const lines = [];
try {
  for (const file of asmFiles(asmDir)) {
    const name = relative(asmDir, file);
    if (only && !name.includes(only)) continue;
    const text = readFileSync(file, 'utf8');
    const cfg = config(text);
    if (!cfg) {
      skipped.noConfig++;
      continue;
    }
    if (cfg.Mode === '32BIT') {
      skipped.mode32++;
      continue;
    }
    const regData = cfg.RegData ?? {};
    if (Object.keys(regData).some((k) => !GPRS.includes(k) && k !== 'RIP')) {
      skipped.vectorRegs++;
      continue;
    }
    if (!(cfg.HostFeatures ?? []).every((f) => f === 'LINUX' || f === 'FSGSBASE' || f === 'BMI1')) {
      skipped.features++;
      continue;
    }
    const src = join(tmp, 'test.asm');
    const bin = join(tmp, 'test.bin');
    writeFileSync(src, `BITS 64\n${text}\nret\n`);
    try {
      execFileSync('nasm', ['-i', includes, src, '-o', bin], { stdio: 'pipe' });
    } catch {
      skipped.nasm++;
      continue;
    }
    const code = readFileSync(bin);
    if (usesVectorRegisters(code)) {
      skipped.vectorRegs++;
      continue;
    }
    const result = run(code, cfg);
    counts[result.kind]++;
    if (result.kind !== 'pass' || verbose)
      lines.push(`${result.kind.padEnd(5)} ${name}${result.detail ? `: ${result.detail}` : ''}`);
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
for (const l of lines) console.log(l);
const total = counts.pass + counts.ud + counts.wrong + counts.other;
console.log(
  `FEX ASM, 64-bit GPR-only tests: ${total} run — ${counts.pass} pass, ${counts.ud} #UD, ${counts.wrong} wrong, ${counts.other} other` +
    ` (skipped: ${skipped.mode32} 32-bit, ${skipped.vectorRegs} vector registers, ${skipped.features} host features, ${skipped.noConfig} no config, ${skipped.nasm} nasm errors)`,
);

/** The instruction of `code` at `rip`, as text with its bytes. */
function disassembleAt(code, rip) {
  const off = Number(rip - CODE);
  if (off < 0 || off >= code.length) return '(outside the code)';
  const d = new Decoder(64, code.subarray(off, off + 15), DecoderOptions.None);
  d.ip = rip;
  const ins = d.decode();
  const f = new FastFormatter();
  const text = f.format(ins);
  const bytes = [...code.subarray(off, off + ins.length)].map((b) => b.toString(16).padStart(2, '0')).join(' ');
  f.free();
  ins.free();
  d.free();
  return `${text} [${bytes}]`;
}

function run(code, cfg) {
  const as = new AddressSpace();
  const rw = PageFlags.Present | PageFlags.Writable | PageFlags.User;
  const map = (a, size) => {
    const start = BigInt(a) & ~0xfffn;
    const end = (BigInt(a) + BigInt(size) + 0xfffn) & ~0xfffn;
    for (let p = start; p < end; p += 4096n) {
      try {
        as.map(p, 4096, rw);
      } catch {
        // already mapped
      }
    }
  };
  map(CODE, code.length);
  as.write(CODE, code);
  map(0xe0000000n, 4096 * 10);
  map(0xe8000000n - 4096n, 4096 * 2);
  for (const [a, size] of Object.entries(cfg.MemoryRegions ?? {})) map(BigInt(a), Number(BigInt(size)));
  for (const [a, hex] of Object.entries(cfg.MemoryData ?? {})) {
    const bytes = hexBytes(hex);
    map(BigInt(a), bytes.length);
    as.write(BigInt(a), Uint8Array.from(bytes));
  }
  map(STACK_TOP - 0x10000n, 0x10000);
  map(RETURN_TO, 4096);
  as.write(RETURN_TO, Uint8Array.of(0xf4));
  const cpu = new Cpu({ addressSpace: as, ...(jit === undefined ? {} : { jit }) });
  cpu.rip = CODE;
  // A Linux process starts with IF set (RFLAGS 0x202), as FEX's harness runs it; CR4.FSGSBASE is on.
  // It runs at CPL 3 (a user process: popf keeps IF, iretq to CS 0x33 stays at CPL 3); its final
  // hlt then raises #GP, which ends the test as FEX's hlt does.
  cpu.rflags = 0x202;
  cpu.cr4 |= 1n << 16n;
  cpu.cs = 0x33;
  cpu.ss = 0x2b;
  cpu.setReg(Reg.RSP, STACK_TOP - 8n);
  as.writeU64(STACK_TOP - 8n, RETURN_TO);
  let r;
  try {
    r = cpu.run(50_000_000);
  } catch (e) {
    return { kind: 'other', detail: `host error: ${e.message}` };
  }
  const atHlt = r.reason === 'exception' && r.vector === 13 && code[Number(r.rip - CODE)] === 0xf4;
  const atEnd = r.reason === 'exception' && r.vector === 13 && r.rip === RETURN_TO;
  if (r.reason !== 'hlt' && !atHlt && !atEnd) {
    if (r.reason === 'exception' && r.vector === 6) {
      return { kind: 'ud', detail: `#UD at ${r.rip.toString(16)}: ${disassembleAt(code, r.rip)}` };
    }
    return {
      kind: 'other',
      detail: `${r.reason}${r.vector !== undefined ? ` vector ${r.vector}` : ''} at ${r.rip?.toString(16)}`,
    };
  }
  const wrong = [];
  for (const [k, v] of Object.entries(cfg.RegData ?? {})) {
    if (k === 'RIP') continue;
    const want = BigInt.asUintN(64, BigInt(v));
    const got = cpu.getReg(Reg[k]);
    if (got !== want) wrong.push(`${k} ${got.toString(16)} != ${want.toString(16)}`);
  }
  return wrong.length === 0 ? { kind: 'pass' } : { kind: 'wrong', detail: wrong.join(', ') };
}
