import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReadByte } from './fetch-insn-bytes.js';

/** Bytes from a hex string such as `'48 8b 05 10 00 00 00'`. */
export function h(hex: string): Uint8Array {
  return Uint8Array.from(hex.split(/\s+/).filter(Boolean), (b) => Number.parseInt(b, 16));
}

/** A kernel-text base address for tests. */
export const TEXT = 0xffffffff81000000n;

/** A `ReadByte` over `bytes` placed at `base`; undefined outside. */
export function textAt(base: bigint, bytes: Uint8Array): ReadByte {
  return (a) => {
    const i = a - base;
    return i >= 0n && i < BigInt(bytes.length) ? bytes[Number(i)] : undefined;
  };
}

/** Whether gcc and objcopy are on this machine. */
export function haveGcc(): boolean {
  try {
    execFileSync('gcc', ['--version'], { stdio: 'ignore' });
    execFileSync('objcopy', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A function gcc compiled: its `.text` bytes and its symbols' offsets and sizes in them. */
export interface CompiledText {
  readonly text: Uint8Array;
  readonly symbols: ReadonlyMap<string, { readonly offset: number; readonly size: number }>;
}

/**
 * Compiles `source` as kernel code (`-O2 -mcmodel=kernel -ffreestanding -fno-pic -mno-red-zone
 * -mno-sse`) to an object file and returns its `.text` and function symbols (relocations left
 * unresolved: addresses in it read as zero).
 */
export function compileKernelC(source: string, extraFlags: readonly string[] = []): CompiledText {
  const dir = mkdtempSync(join(tmpdir(), 'int3-kprobes-'));
  try {
    writeFileSync(join(dir, 'f.c'), source);
    const flags = ['-O2', '-mcmodel=kernel', '-ffreestanding', '-fno-pic', '-mno-red-zone', '-mno-sse', '-mno-mmx'];
    const more = ['-fcf-protection=none', '-fno-asynchronous-unwind-tables', ...extraFlags];
    execFileSync('gcc', [...flags, ...more, '-c', '-o', join(dir, 'f.o'), join(dir, 'f.c')]);
    execFileSync('objcopy', ['-O', 'binary', '--only-section=.text', join(dir, 'f.o'), join(dir, 'f.bin')]);
    const nm = execFileSync('nm', ['-S', '--defined-only', join(dir, 'f.o')], { encoding: 'utf8' });
    const symbols = new Map<string, { offset: number; size: number }>();
    for (const line of nm.split('\n')) {
      const [offset, size, type, name] = line.trim().split(/\s+/);
      if (name !== undefined && (type === 'T' || type === 't')) {
        symbols.set(name, { offset: Number.parseInt(offset, 16), size: Number.parseInt(size, 16) });
      }
    }
    return { text: new Uint8Array(readFileSync(join(dir, 'f.bin'))), symbols };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Instruction start offsets objdump finds in raw x86-64 `bytes` (disassembled from offset 0). */
export function objdumpOffsets(bytes: Uint8Array): number[] {
  const dir = mkdtempSync(join(tmpdir(), 'int3-objdump-'));
  try {
    writeFileSync(join(dir, 'code.bin'), bytes);
    const out = execFileSync('objdump', ['-D', '-b', 'binary', '-m', 'i386:x86-64', join(dir, 'code.bin')], {
      encoding: 'utf8',
    });
    const offsets: number[] = [];
    for (const line of out.split('\n')) {
      const m = /^\s*([0-9a-f]+):\t([0-9a-f]{2} )+\s*\t/.exec(line);
      if (m) offsets.push(Number.parseInt(m[1], 16));
    }
    return offsets;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
