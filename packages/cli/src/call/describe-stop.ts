import type { SymbolTable } from '@int3/cpu';
import { type AddressSpace, disassemble, ExceptionVector, type RunResult, type TrapEvent } from '@int3/cpu';

/** SDM mnemonics of the vectors the CPU raises (ExceptionVector values). */
const NAMES: Readonly<Record<number, string>> = { 0: '#DE', 1: '#DB', 3: '#BP', 6: '#UD', 13: '#GP', 14: '#PF' };

/** `0x`-prefixed lower-case hex of a 64-bit value. */
export function hex64(value: bigint | number): string {
  return `0x${BigInt.asUintN(64, BigInt(value)).toString(16)}`;
}

/**
 * One line saying why a guest call stopped other than by returning, e.g.
 * `guest fault: #PF at rip=0xffffffff81000123 (h_sort+0x23/0x80) cr2=0x0 error=0x2` or
 * `guest fault: #UD at rip=0x... (f+0x4/0x10) bytes=0f 0b mnemonic=ud2`.
 *
 * @param traps the trap events of the call (they carry the bytes and mnemonic of a #UD)
 * @see arch/x86/kernel/dumpstack.c show_ip(), arch/x86/mm/fault.c show_fault_oops() (what an oops names)
 */
export function describeStop(
  result: RunResult,
  traps: readonly TrapEvent[],
  symbols: SymbolTable,
  space: AddressSpace,
  maxInsns: number,
): string {
  const where = `rip=${hex64(result.rip)}${located(symbols, result.rip)}`;
  switch (result.reason) {
    case 'exception': {
      const name = NAMES[result.vector] ?? `vector ${result.vector}`;
      const fields: string[] = [];
      if (result.vector === ExceptionVector.PageFault) fields.push(`cr2=${hex64(result.cr2 ?? 0n)}`);
      if (result.errorCode !== undefined) fields.push(`error=${hex64(result.errorCode)}`);
      const event = [...traps].reverse().find((t) => t.vector === result.vector && t.rip === result.rip);
      const insn = instructionAt(space, result.rip);
      if (result.vector === ExceptionVector.InvalidOpcode) {
        fields.push(`bytes=${spaced(event?.bytes ?? insn?.bytes ?? '??')}`);
        fields.push(`mnemonic=${event?.mnemonic ?? insn?.text.split(' ')[0] ?? '??'}`);
      } else if (insn && result.vector !== ExceptionVector.Breakpoint) {
        fields.push(`insn="${insn.text}"`);
      }
      return `guest fault: ${name} at ${where}${fields.length ? ` ${fields.join(' ')}` : ''}`;
    }
    case 'budget':
      return `stopped: --max-insns ${maxInsns} exhausted at ${where} (raise --max-insns if the function is slow)`;
    case 'hlt':
      return `stopped: guest executed hlt at ${where}`;
    case 'gate':
      return `stopped: guest reached a host gate at ${where}`;
    case 'interrupt':
      return `stopped: interrupt ${result.vector} at ${where}`;
  }
}

function located(symbols: SymbolTable, address: bigint): string {
  const loc = symbols.symbolize(address);
  return loc ? ` (${symbols.format(address)})` : '';
}

/** The instruction at `address` as objdump would show it, or undefined if its bytes are unmapped. */
function instructionAt(space: AddressSpace, address: bigint): { bytes: string; text: string } | undefined {
  let length = 0;
  while (length < 15 && space.isMapped(address + BigInt(length))) length++;
  if (length === 0) return undefined;
  const [insn] = disassemble(space.read(address, length), address, 1);
  return insn;
}

/** `0f0b` or `0f 0b` as `0f 0b`. */
function spaced(bytes: string): string {
  const digits = bytes.replace(/[^0-9a-f]/gi, '').toLowerCase();
  return digits.match(/../g)?.join(' ') ?? digits;
}
