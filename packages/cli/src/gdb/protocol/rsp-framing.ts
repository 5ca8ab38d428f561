/**
 * The framing of gdb's remote serial protocol: `$payload#cc` packets with a modulo-256 checksum,
 * `+`/`-` acknowledgments, `}`-escaping of `#`, `$`, `}` and `*`, and the lone 0x03 byte of Ctrl-C.
 * Payloads are binary strings (one char per byte, latin1).
 *
 * @see gdb's manual, "Remote Protocol" › "Overview" (packet format, escaping, run-length encoding)
 */

/** Sum of the payload's bytes modulo 256, as two lower-case hex digits. */
export function checksum(payload: string): string {
  let sum = 0;
  for (let i = 0; i < payload.length; i++) sum = (sum + payload.charCodeAt(i)) & 0xff;
  return sum.toString(16).padStart(2, '0');
}

/** `$`, `#`, `}` and `*` are escaped as `}` followed by the byte xor 0x20 (`*` would start a run). */
export function escapeBinary(data: string): string {
  return data.replace(/[$#}*]/g, (c) => `}${String.fromCharCode(c.charCodeAt(0) ^ 0x20)}`);
}

/** Undoes {@link escapeBinary} and expands run-length encoding (`X*n`: n − 29 more copies of X). */
export function unescapeBinary(data: string): string {
  let out = '';
  for (let i = 0; i < data.length; i++) {
    const c = data[i];
    if (c === '}' && i + 1 < data.length) {
      out += String.fromCharCode(data.charCodeAt(++i) ^ 0x20);
    } else if (c === '*' && i + 1 < data.length && out.length > 0) {
      out += out[out.length - 1].repeat(data.charCodeAt(++i) - 29);
    } else out += c;
  }
  return out;
}

/** A whole packet on the wire: `$`, the escaped payload, `#`, the checksum. */
export function framePacket(payload: string): string {
  const body = escapeBinary(payload);
  return `$${body}#${checksum(body)}`;
}

/** What {@link RspDecoder} found in the bytes gdb sent. */
export type RspInput =
  | { readonly type: 'packet'; readonly payload: string }
  /** A packet whose checksum did not match: answered with `-` so gdb sends it again. */
  | { readonly type: 'corrupt' }
  | { readonly type: 'ack' }
  | { readonly type: 'nack' }
  /** Ctrl-C: gdb asks a running target to stop. */
  | { readonly type: 'interrupt' };

/** Longest packet accepted; longer input is dropped as garbage (gdb's own limit is what we announce). */
export const MAX_PACKET_BYTES = 0x4000;

/**
 * Splits the byte stream from gdb into packets, acknowledgments and interrupts. Bytes outside a
 * packet other than `+`, `-` and 0x03 are ignored, as a line's noise would be.
 */
export class RspDecoder {
  private buffer = '';
  /** Outside a packet, in its body, or reading its checksum (the digits read so far). */
  private state: 'idle' | 'body' | 'sum' = 'idle';
  private sum = '';

  /** Feeds bytes (latin1 string or Buffer) and returns what they completed, in order. */
  feed(chunk: string | Uint8Array): RspInput[] {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('latin1');
    const out: RspInput[] = [];
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (this.state === 'idle') {
        if (c === '$') {
          this.state = 'body';
          this.buffer = '';
        } else if (c === '+') out.push({ type: 'ack' });
        else if (c === '-') out.push({ type: 'nack' });
        else if (c === '\x03') out.push({ type: 'interrupt' });
      } else if (this.state === 'body') {
        // A raw '#' always ends the body: inside a payload it is escaped ('}' then 0x03).
        if (c === '#') {
          this.state = 'sum';
          this.sum = '';
        } else if (this.buffer.length >= MAX_PACKET_BYTES) {
          this.state = 'idle';
          out.push({ type: 'corrupt' });
        } else this.buffer += c;
      } else {
        this.sum += c;
        if (this.sum.length === 2) {
          this.state = 'idle';
          const body = this.buffer;
          this.buffer = '';
          out.push(
            this.sum.toLowerCase() === checksum(body)
              ? { type: 'packet', payload: unescapeBinary(body) }
              : { type: 'corrupt' },
          );
        }
      }
    }
    return out;
  }
}
