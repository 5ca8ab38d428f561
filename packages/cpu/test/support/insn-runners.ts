import { AddressSpace, Cpu, PageFlags, type RegIndex } from '../../src/index.js';
import { type InsnCase, type InsnOutcome, SCRATCH_PAGE, WINDOW_OFFSET, WINDOW_SIZE } from './insn-case.js';
import { hexOf } from './insn-encoding.js';
import { runBatch } from './run-native.js';

const hex = (v: bigint | number) => v.toString(16);

/** Runs cases on the host CPU through `insn-runner.c`, one process for the whole batch. */
export function runNativeInsns(runner: string, cases: readonly InsnCase[]): InsnOutcome[] {
  const lines = cases.map((c) =>
    [
      hexOf(c.bytes),
      ...c.before.regs.map(hex),
      hex(c.before.rflags),
      c.before.memory ? hexOf(c.before.memory) : '-',
    ].join(' '),
  );
  return runBatch(runner, lines).map((line, i): InsnOutcome => {
    const words = line.split(' ');
    if (words[0] === 'fault') return { kind: 'fault', vector: Number(words[1]) };
    const values = words.slice(1, 18).map((w) => BigInt(`0x${w}`));
    const memory = cases[i].before.memory ? Uint8Array.from(Buffer.from(words[18], 'hex')) : undefined;
    return { kind: 'ok', state: { regs: values.slice(0, 16), rflags: Number(values[16]), memory } };
  });
}

/** Code is placed to end exactly where a Gate page starts: reaching the gate ends the run. */
const CODE_PAGE = 0xffffffffa0000000n;
const GATE_PAGE = CODE_PAGE + 0x1000n;

/**
 * Runs cases in the emulator: one CPU at CPL 0, the bytes written just below a Gate page (each write
 * invalidates what was decoded there before), registers and flags from the case. `jit`: the CPU's
 * (by default with the compiler, whose CPU interprets cold code through its table of handlers;
 * false: the interpreter alone, which switches).
 */
export class EmulatorInsnRunner {
  private readonly space = new AddressSpace();
  private readonly cpu: Cpu;

  constructor(jit?: false) {
    this.space.map(CODE_PAGE, 0x1000, PageFlags.Present);
    this.space.map(GATE_PAGE, 0x1000, PageFlags.Present | PageFlags.Gate);
    this.space.map(SCRATCH_PAGE, 0x1000, PageFlags.Present | PageFlags.Writable | PageFlags.NoExecute);
    this.cpu = new Cpu(jit === false ? { addressSpace: this.space, jit } : { addressSpace: this.space });
  }

  run(c: InsnCase): InsnOutcome {
    const { cpu } = this;
    const start = GATE_PAGE - BigInt(c.bytes.length);
    this.space.write(start, c.bytes);
    const window = SCRATCH_PAGE + BigInt(WINDOW_OFFSET);
    this.space.write(window, c.before.memory ?? new Uint8Array(WINDOW_SIZE));
    for (let r = 0; r < 16; r++) cpu.setReg(r as RegIndex, c.before.regs[r]);
    // IF set as in the host's user mode, so pushfq pushes the same value (no interrupt is ever raised).
    cpu.rflags = c.before.rflags | 0x202;
    cpu.rip = start;
    const result = cpu.run(16);
    if (result.reason === 'exception') return { kind: 'fault', vector: result.vector };
    if (result.reason !== 'gate' || result.rip !== GATE_PAGE) {
      throw new Error(`${hexOf(c.bytes)}: stopped with ${result.reason} at 0x${result.rip.toString(16)}`);
    }
    const regs = Array.from({ length: 16 }, (_, r) => cpu.getReg(r as RegIndex));
    const memory = c.before.memory ? this.space.read(window, WINDOW_SIZE) : undefined;
    return { kind: 'ok', state: { regs, rflags: cpu.rflags, memory } };
  }
}
