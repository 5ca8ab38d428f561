import { Decoder, DecoderError, DecoderOptions, Formatter, FormatterSyntax, Instruction } from 'iced-x86';
import { Insn } from './insn.js';
import { Op } from './op.js';
import { PAGE_SIZE } from './page-flags.js';
import { translate } from './translate.js';

let scratch: Instruction | null = null;
let formatter: Formatter | null = null;

/** A shared GNU-syntax (objdump-like) iced formatter. */
export function gasFormatter(): Formatter {
  if (formatter === null) {
    formatter = new Formatter(FormatterSyntax.Gas);
    formatter.uppercaseHex = false;
    formatter.hexPrefix = '0x';
    formatter.hexSuffix = '';
  }
  return formatter;
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(' ');
}

/**
 * Decodes the instruction at `address` from `bytes` (up to 15 bytes starting at it) with iced-x86 and
 * translates it; returns null when the bytes end before the instruction does. Frees every wasm object.
 * @see Intel SDM Vol. 2A §2.1 (instruction format)
 */
export function decodeInsn(bytes: Uint8Array, address: bigint): Insn | null {
  if (scratch === null) scratch = new Instruction();
  const decoder = new Decoder(64, bytes, DecoderOptions.None);
  try {
    decoder.ip = address;
    decoder.decodeOut(scratch);
    if (scratch.isInvalid && decoder.lastError === DecoderError.NoMoreBytes && bytes.length < 15) return null;
    const insn = translate(scratch, new Insn());
    if (insn.op === Op.Ud) {
      insn.bytes = hex(bytes.subarray(0, Math.max(1, scratch.length)));
      insn.mnemonic = scratch.isInvalid ? '(bad)' : gasFormatter().formatMnemonic(scratch);
      if (insn.len === 0) insn.len = 1;
    }
    return insn;
  } finally {
    decoder.free();
  }
}

/** The pseudo-instruction standing for a fetch from a Gate page. */
export function gateInsn(): Insn {
  const insn = new Insn();
  insn.op = Op.Gate;
  insn.len = 1;
  insn.cost = 0;
  return insn;
}

/** The pseudo-instruction standing for an address in `Cpu.debugStops` (it is never compiled). */
export function debugStopInsn(): Insn {
  const insn = new Insn();
  insn.op = Op.DebugStop;
  insn.len = 1;
  insn.cost = 0;
  return insn;
}

/** Bytes available for decoding at `offset` on a page (at most 15, stopping at the page end). */
export function pageBytes(data: Uint8Array, offset: number): Uint8Array {
  return data.subarray(offset, Math.min(offset + 15, PAGE_SIZE));
}
