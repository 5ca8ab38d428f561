/** Hex encodings of the remote protocol: bytes as pairs of hex digits, values little-endian. */

/** Bytes as lower-case hex pairs. */
export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

/** Hex pairs as bytes; undefined when `text` is not an even run of hex digits. */
export function fromHex(text: string): Uint8Array | undefined {
  if (text.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(text)) return undefined;
  return new Uint8Array(Buffer.from(text, 'hex'));
}

/** A text as the hex of its UTF-8 bytes (`qRcmd`, `O` packets, `qThreadExtraInfo`). */
export function textToHex(text: string): string {
  return Buffer.from(text, 'utf8').toString('hex');
}

/** `value` as `bits / 8` little-endian bytes in hex (the register encoding of `g` and `p`). */
export function littleEndianHex(value: bigint, bits: number): string {
  let v = BigInt.asUintN(bits, value);
  let out = '';
  for (let i = 0; i < bits / 8; i++) {
    out += Number(v & 0xffn)
      .toString(16)
      .padStart(2, '0');
    v >>= 8n;
  }
  return out;
}

/** Little-endian hex bytes as a value (the inverse of {@link littleEndianHex}); undefined if not hex. */
export function fromLittleEndianHex(text: string): bigint | undefined {
  const bytes = fromHex(text);
  if (!bytes) return undefined;
  let v = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(bytes[i]);
  return v;
}

/** A hex number (`ffffffff81001c80`); undefined if it is not one. */
export function parseHexNumber(text: string): bigint | undefined {
  return /^[0-9a-fA-F]{1,16}$/.test(text) ? BigInt(`0x${text}`) : undefined;
}
