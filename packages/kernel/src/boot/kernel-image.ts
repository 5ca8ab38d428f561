import { type ElfFile, type ElfSymbol, PAGE_SIZE, parseElf } from '@int3/cpu';
import type { KsymInput, KsymKind } from '../kallsyms/kallsyms.js';
import { KernelError } from '../kernel-error.js';

const SHF_WRITE = 0x1;
const SHF_ALLOC = 0x2;
const SHF_EXECINSTR = 0x4;
const SHT_NOBITS = 8;

/** Symbols the host needs from a kernel image (`image/ABI.md` §1). */
export const REQUIRED_KERNEL_SYMBOLS = [
  '_stext',
  '_etext',
  '__entry_text_start',
  '__entry_text_end',
  '__hostcall_start',
  '__hostcall_end',
  '__start___ex_table',
  '__stop___ex_table',
  'entry_SYSCALL_64',
  'start_kernel',
  'int3_task_create',
  'do_exit',
  'init_task',
  'kernel_flag',
] as const;

/** The addresses the host kernel works with, resolved once at boot. */
export type KernelSymbols = Readonly<Record<(typeof REQUIRED_KERNEL_SYMBOLS)[number], bigint>>;

/** A parsed and validated kernel image. */
export interface KernelImage {
  readonly elf: ElfFile;
  readonly symbols: KernelSymbols;
  /** Every `host_<name>` gate: name → address. */
  readonly gates: ReadonlyMap<string, bigint>;
  /** kallsyms input: every named function/object symbol with its section kind. */
  readonly ksyms: readonly KsymInput[];
}

/**
 * Parses a kernel ELF and checks it is an int3 guest kernel: every symbol the host needs exists.
 * Errors name the file and what is missing, so `--image` mistakes are clear.
 */
export function parseKernelImage(bytes: Uint8Array, name: string): KernelImage {
  const elf = parseElf(bytes, name);
  if (elf.type !== 'exec')
    throw new KernelError('BAD_IMAGE', `${name}: not a kernel image (ET_REL: load it as a module)`);
  const byName = new Map<string, ElfSymbol>();
  for (const s of elf.symbols) if (s.name && !byName.has(s.name)) byName.set(s.name, s);
  const missing = REQUIRED_KERNEL_SYMBOLS.filter((n) => !byName.has(n));
  if (missing.length > 0) {
    throw new KernelError(
      'BAD_IMAGE',
      `${name}: not an int3 kernel image (missing ${missing.join(', ')}; see packages/kernel/image/ABI.md)`,
    );
  }
  const symbols = Object.freeze(
    Object.fromEntries(REQUIRED_KERNEL_SYMBOLS.map((n) => [n, byName.get(n)!.value])),
  ) as KernelSymbols;
  const gates = new Map<string, bigint>();
  for (const s of elf.symbols) {
    if (
      s.type === 'func' &&
      s.name.startsWith('host_') &&
      s.value >= symbols.__hostcall_start &&
      s.value < symbols.__hostcall_end
    ) {
      gates.set(s.name.slice('host_'.length), s.value);
    }
  }
  return { elf, symbols, gates, ksyms: kallsymsInputs(elf) };
}

/** kallsyms entries of an image or module: named, allocated, not file/section symbols. */
export function kallsymsInputs(elf: ElfFile, relocate: (s: ElfSymbol) => bigint = (s) => s.value): KsymInput[] {
  const out: KsymInput[] = [];
  for (const s of elf.symbols) {
    if (!s.name || s.type === 'file' || s.type === 'section') continue;
    const kind = sectionKind(elf, s);
    if (!kind) continue;
    out.push({ name: s.name, address: relocate(s), size: s.size, kind, global: s.bind !== 'local' });
  }
  return out;
}

function sectionKind(elf: ElfFile, s: ElfSymbol): KsymKind | undefined {
  if (s.shndx === 0xfff1) return 'abs';
  const sec = elf.sections[s.shndx];
  if (!sec || (sec.flags & SHF_ALLOC) === 0) return undefined;
  if (sec.flags & SHF_EXECINSTR) return 'text';
  if (sec.type === SHT_NOBITS) return 'bss';
  return sec.flags & SHF_WRITE ? 'data' : 'rodata';
}

/** The pages a kernel image's loaded segments span, [start, end): what nothing else may be linked over. */
export function imageExtent(elf: ElfFile): readonly [bigint, bigint] {
  const page = BigInt(PAGE_SIZE);
  let start: bigint | undefined;
  let end = 0n;
  for (const s of elf.segments) {
    if (s.memSize === 0) continue;
    const top = s.vaddr + BigInt(s.memSize);
    if (start === undefined || s.vaddr < start) start = s.vaddr;
    if (top > end) end = top;
  }
  start ??= 0n;
  return Object.freeze([start - (start % page), ((end + page - 1n) / page) * page] as const);
}
