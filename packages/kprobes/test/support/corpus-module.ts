import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseElf } from '@int3/cpu';
import {
  CORPUS_DIR,
  CORPUS_FUNCTIONS,
  type CorpusCall,
  type CorpusFunction,
  type CorpusResult,
  normaliseReturn,
  toHex,
} from '@int3/cpu/testing';
import { KERNEL_CFLAGS, type LoadedModule, type Machine } from '@int3/kernel';
import { type DecodedInsn, decodeInsn } from '../../src/arch/x86/decode-insn.js';

const HERE = dirname(fileURLToPath(import.meta.url));
/** Git-ignored cache of compiled corpus modules (`packages/*\/test/.build/`). */
const BUILD_DIR = join(HERE, '..', '.build');

/** The optimisation levels the CPU differential compares at; each is one module. */
export const CORPUS_OPT_LEVELS = ['-O0', '-O2', '-Os'] as const;
/** One of {@link CORPUS_OPT_LEVELS}. */
export type CorpusOptLevel = (typeof CORPUS_OPT_LEVELS)[number];

/** The module flags of `packages/kernel/image/modules/build.sh` (the kernel's), the optimisation level apart. */
function moduleCflags(opt: CorpusOptLevel): string[] {
  const include = execFileSync('gcc', ['-print-file-name=include'], { encoding: 'utf8' }).trim();
  return [
    ...KERNEL_CFLAGS.map((f) => (f === '-O2' ? opt : f)),
    '-nostdinc',
    '-isystem',
    include,
    `-I${CORPUS_DIR}`,
    '-Wall',
  ];
}

/** Whether `f` returns 128 bits (rdx:rax), so that harnesses call it through its wrapper. */
export function isWide(f: CorpusFunction): boolean {
  return f.returns === 'u128' || f.returns === 'i128';
}

/** Prefix of the generated wrappers that store a 128-bit result (guest calls only see rax). */
export const WIDE_PREFIX = 'int3_wide_';

/**
 * C wrappers `void int3_wide_<f>(a0, …, u128 *out)` for the corpus functions returning 128 bits:
 * `m.kernel.guest.call` returns rax only, so the wrapper stores rdx:rax for the harness.
 */
function wideWrappersSource(): string {
  const lines = ['#include "corpus.h"', ''];
  for (const f of CORPUS_FUNCTIONS.filter(isWide)) {
    const params = f.args.map((_, i) => `uint64_t a${i}`);
    const args = f.args.map((_, i) => `a${i}`);
    lines.push(`void ${WIDE_PREFIX}${f.name}(${[...params, `${f.returns} *out`].join(', ')});`);
    lines.push(`void ${WIDE_PREFIX}${f.name}(${[...params, `${f.returns} *out`].join(', ')})`);
    lines.push(`{\n\t*out = ${f.name}(${args.join(', ')});\n}\n`);
  }
  return lines.join('\n');
}

/**
 * Compiles the corpus with the module flags at `opt` (one `gcc -c` per file, plus the wide wrappers),
 * links it with libgcc into one ET_REL object (`ld -r`, as Kbuild links a multi-object module), and
 * returns the `.ko` path. Cached under `test/.build/<hash>/`, keyed by compiler, flags and sources.
 */
export function buildCorpusModule(opt: CorpusOptLevel = '-O2'): string {
  const sources = readdirSync(CORPUS_DIR)
    .filter((f) => f.endsWith('.c'))
    .sort();
  const wrappers = wideWrappersSource();
  const flags = moduleCflags(opt);
  const libgcc = execFileSync('gcc', ['-print-libgcc-file-name'], { encoding: 'utf8' }).trim();
  const h = createHash('sha256');
  h.update(execFileSync('gcc', ['--version'], { encoding: 'utf8' }).split('\n')[0]);
  h.update(JSON.stringify([flags, libgcc, sources]));
  for (const f of [...sources, 'corpus.h']) h.update(readFileSync(join(CORPUS_DIR, f)));
  h.update(wrappers);
  const dir = join(BUILD_DIR, h.digest('hex').slice(0, 16));
  const target = join(dir, `corpus${opt}.ko`);
  if (existsSync(target)) return target;
  // Parallel test files may build the same key: work in a private directory, publish by rename.
  const work = join(dir, `work.${process.pid}`);
  mkdirSync(work, { recursive: true });
  try {
    writeFileSync(join(work, 'int3_wide.c'), wrappers);
    const objects = [...sources.map((s) => join(CORPUS_DIR, s)), join(work, 'int3_wide.c')].map((src, i) => {
      const obj = join(work, `${i}.o`);
      execFileSync('gcc', [...flags, '-c', src, '-o', obj], { stdio: ['ignore', 'pipe', 'pipe'] });
      return obj;
    });
    // libgcc supplies __popcountdi2 (which the kernel does not export); its .eh_frame is dead weight.
    const linked = join(work, 'corpus.ko');
    execFileSync('ld', ['-r', '-o', linked, ...objects, libgcc], { stdio: ['ignore', 'pipe', 'pipe'] });
    execFileSync('objcopy', ['-R', '.eh_frame', '-R', '.rela.eh_frame', linked]);
    renameSync(linked, target);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return target;
}

/** A function of a loaded corpus module, with its instruction boundaries. */
export interface CorpusText {
  readonly name: string;
  readonly address: bigint;
  readonly size: number;
  /** Addresses of its instructions, decoded from its start. */
  readonly boundaries: readonly bigint[];
}

/** A corpus module loaded into a machine. */
export interface CorpusModule {
  readonly opt: CorpusOptLevel;
  readonly module: LoadedModule;
  /** Every function symbol of the module (static helpers and libgcc included), by name. */
  readonly functions: ReadonlyMap<string, CorpusText>;
  /** Every decoded instruction of those functions, by address. */
  readonly insns: ReadonlyMap<bigint, DecodedInsn>;
  /** Whether `address` is inside the module's text. */
  readonly contains: (address: bigint) => boolean;
}

function decodeFunction(m: Machine, address: bigint, size: number): DecodedInsn[] {
  const out: DecodedInsn[] = [];
  const code = m.space.read(address, size + 16);
  for (let off = 0; off < size; ) {
    const insn = decodeInsn(code.subarray(off, off + 16), address + BigInt(off));
    if (insn.invalid) throw new Error(`undecodable bytes at ${m.kallsyms.format(address + BigInt(off))}`);
    out.push(insn);
    off += insn.length;
  }
  return out;
}

/** Builds (cached) and loads the corpus at `opt` as module `corpus_O2` (…) into `m`. */
export function loadCorpusModule(m: Machine, opt: CorpusOptLevel = '-O2'): CorpusModule {
  const bytes = new Uint8Array(readFileSync(buildCorpusModule(opt)));
  const module = m.modules.load(bytes, `corpus_${opt.slice(1)}.ko`);
  const functions = new Map<string, CorpusText>();
  const insns = new Map<bigint, DecodedInsn>();
  for (const s of parseElf(bytes, 'corpus.ko').symbols) {
    if (s.type !== 'func' || s.sectionName === undefined || s.size === 0) continue;
    const base = module.sections.get(s.sectionName);
    if (base === undefined) continue;
    const address = base + s.value;
    const decoded = decodeFunction(m, address, s.size);
    for (const insn of decoded) insns.set(insn.address, insn);
    functions.set(s.name, { name: s.name, address, size: s.size, boundaries: decoded.map((i) => i.address) });
  }
  return {
    opt,
    module,
    functions,
    insns,
    contains: (a) => a >= module.textStart && a < module.textEnd,
  };
}

/** The address a harness calls for corpus function `f` (its 128-bit wrapper for wide results). */
export function callTarget(cm: CorpusModule, f: CorpusFunction): bigint {
  const t = cm.functions.get(isWide(f) ? `${WIDE_PREFIX}${f.name}` : f.name);
  if (!t) throw new Error(`${f.name} is not in the corpus module`);
  return t.address;
}

/** What one guest call of a corpus function produced, and the argument registers it was given. */
export interface GuestCorpusCall {
  readonly result: CorpusResult;
  /** The argument registers passed to the manifest function (buffers as their kmalloc'd pointers). */
  readonly passed: readonly bigint[];
  /** Virtual time the call took on CPU 0, in ns: instrumentation must add none. */
  readonly elapsed: number;
}

/**
 * Calls a corpus function in the guest on CPU 0, its buffers copied into kmalloc'd memory, and returns
 * what it produced in the CPU harness's form (result normalised to its C type, buffers as hex).
 */
export function callCorpus(m: Machine, cm: CorpusModule, call: CorpusCall): GuestCorpusCall {
  const f = CORPUS_FUNCTIONS[call.fn];
  const args = [...call.args.slice(0, f.args.length)];
  const allocated: bigint[] = [];
  const alloc = (size: number) => {
    const a = m.kernel.memory.heap.alloc(Math.max(size, 1));
    if (a === 0n) throw new Error('kmalloc failed');
    allocated.push(a);
    return a;
  };
  try {
    const placed = call.buffers.map((b) => {
      const at = alloc(b.bytes.length);
      m.space.write(at, b.bytes);
      args[b.slot] = at;
      return { at, size: b.bytes.length };
    });
    const passed = [...args];
    const out = isWide(f) ? alloc(16) : undefined;
    if (out !== undefined) args.push(out);
    const start = m.clock(0);
    const rax = m.kernel.guest.call(0, callTarget(cm, f), args);
    const elapsed = m.clock(0) - start;
    const wide = out === undefined ? undefined : [m.space.readU64(out), m.space.readU64(out + 8n)];
    const { lo, hi } = wide ? normaliseReturn(f.returns, wide[0], wide[1]) : normaliseReturn(f.returns, rax, 0n);
    return { result: { lo, hi, buffers: placed.map((p) => toHex(m.space.read(p.at, p.size))) }, passed, elapsed };
  } finally {
    for (const a of allocated) m.kernel.memory.heap.free(a);
  }
}
