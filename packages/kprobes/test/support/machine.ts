import { Machine, readSampleImage, sampleProgram } from '@int3/kernel';
import { decodeInsn } from '../../src/arch/x86/decode-insn.js';
import type { X86KprobesArch } from '../../src/arch/x86/x86-kprobes-arch.js';
import { Kprobes, kprobesCore } from '../../src/kprobes.js';

const image = readSampleImage();

/** A booted sample kernel with kprobes initialised. */
export function bootWithKprobes(cpus = 1, quantum?: number): { m: Machine; k: Kprobes } {
  const m = Machine.boot({ image, cpus, ...(quantum === undefined ? {} : { quantum }), programs: sampleProgram });
  return { m, k: Kprobes.init(m) };
}

/** The x86 parts behind `k` (instruction slots, the booster, optprobes), for tests of the mechanism. */
export function x86(k: Kprobes): X86KprobesArch['parts'] {
  return (kprobesCore(k).arch as X86KprobesArch).parts;
}

/** Runs workloads to completion and returns their console output, in order. */
export function run(m: Machine, ...argvs: string[][]): string {
  const start = m.console.length;
  const tasks = argvs.map((argv) => m.spawn(argv));
  const outcome = m.run({ until: () => tasks.every((t) => t.exited) });
  if (outcome.reason !== 'done') throw new Error(`run ended with ${JSON.stringify(outcome)}\n${m.printk.dmesg()}`);
  return m.console
    .slice(start)
    .map((c) => c.text)
    .join('');
}

/** Address of `sym + off`. */
export function addr(m: Machine, sym: string, off = 0): bigint {
  const s = m.kallsyms.lookupName(sym);
  if (!s) throw new Error(`no symbol ${sym}`);
  return s.address + BigInt(off);
}

/** Instruction boundaries of `sym`, decoded from its start. */
export function boundaries(m: Machine, sym: string): { address: bigint; bytes: readonly number[]; text: string }[] {
  const s = m.kallsyms.lookupName(sym)!;
  const out = [];
  let a = s.address;
  while (a < s.address + BigInt(s.size)) {
    const insn = decodeInsn(m.space.read(a, 16), a);
    if (insn.invalid) break;
    out.push({ address: a, bytes: insn.bytes, text: insn.text });
    a += BigInt(insn.length);
  }
  return out;
}

/** Address of the first instruction of `sym` whose bytes start with `hex` (e.g. 'ffd0' = call *%rax). */
export function findInsn(m: Machine, sym: string, hex: string): bigint {
  const want = hex.toLowerCase();
  const hit = boundaries(m, sym).find((i) => Buffer.from(i.bytes).toString('hex').startsWith(want));
  if (!hit) throw new Error(`${hex} not found in ${sym}`);
  return hit.address;
}
