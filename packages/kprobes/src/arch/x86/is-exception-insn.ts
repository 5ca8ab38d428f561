import { skipPrefixes } from './skip-prefixes.js';

/** An exception-raising instruction kprobes refuses to probe. */
export interface ExceptionInsn {
  /** Mnemonic: `ud0`, `ud1`, `ud2`, `int3`, `int`, `into` or `int1`. */
  readonly mnemonic: string;
  /** Why it cannot be probed. */
  readonly reason: string;
}

const ONE_BYTE: Record<number, string> = { 204: 'int3', 205: 'int', 206: 'into', 241: 'int1' };
const TWO_BYTE: Record<number, string> = { 255: 'ud0', 185: 'ud1', 11: 'ud2' };

/**
 * Whether the instruction at the start of `bytes` raises an exception by design (`0f ff` UD0,
 * `0f b9` UD1, `0f 0b` UD2, `cc` INT3, `cd` INT n, `ce` INTO, `f1` INT1), tested on the opcode bytes
 * after the prefixes. Such an address is refused: the trap it raises would be taken from the slot and
 * the fixup tables (BUG/WARN sites) would not recognise it.
 * @see arch/x86/kernel/kprobes/core.c is_exception_insn() (modern can_probe)
 */
export function isExceptionInsn(bytes: Uint8Array): ExceptionInsn | undefined {
  const at = skipPrefixes(bytes);
  const op = bytes[at];
  const name = op === 0x0f ? TWO_BYTE[bytes[at + 1]] : ONE_BYTE[op];
  if (name === undefined) return undefined;
  return Object.freeze({
    mnemonic: name,
    reason: `${name} raises an exception by design; kprobes cannot probe an exception instruction`,
  });
}
