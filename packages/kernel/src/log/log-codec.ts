import { KernelError } from '../kernel-error.js';
import { crc32 } from './crc32.js';

/** First line of every log file; the number is the format version. */
export const LOG_MAGIC = 'INT3LOG';
/** The log format version this code writes and reads. */
export const LOG_VERSION = 1;

/** One entry of a log: a JSON object with a `type`. BigInts are allowed anywhere. */
export interface LogEntry {
  readonly type: string;
  readonly [key: string]: unknown;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

function replacer(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? { $big: value.toString(16) } : value;
}

function reviver(_key: string, value: unknown): unknown {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    if (typeof o.$big === 'string' && Object.keys(o).length === 1) {
      const neg = o.$big.startsWith('-');
      const v = BigInt(`0x${neg ? o.$big.slice(1) : o.$big}`);
      return neg ? -v : v;
    }
  }
  return value;
}

/**
 * Encodes one entry as a log line: `<crc32 hex8> <json>\n`. The checksum covers the JSON text, so a
 * flipped byte anywhere in the line is detected.
 */
export function encodeLogLine(entry: LogEntry): string {
  const json = JSON.stringify(entry, replacer);
  return `${crc32(encoder.encode(json)).toString(16).padStart(8, '0')} ${json}\n`;
}

/** The first line of a log file. */
export function logHeaderLine(): string {
  return `${LOG_MAGIC} ${LOG_VERSION}\n`;
}

/**
 * Parses a whole log file. All or nothing: a foreign file, a version this code does not read, a bad
 * checksum, malformed JSON or a truncated last line is an error naming the file, the line and why —
 * never a partial result.
 *
 * @param name the file name used in error messages
 */
export function decodeLog(bytes: Uint8Array, name: string): LogEntry[] {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw new KernelError('BAD_LOG', `${name}: not an int3 log (not UTF-8 text)`);
  }
  const lines = text.split('\n');
  const header = lines[0] ?? '';
  if (!header.startsWith(`${LOG_MAGIC} `)) {
    throw new KernelError('BAD_LOG', `${name}: not an int3 log (no '${LOG_MAGIC}' header)`);
  }
  const version = Number(header.slice(LOG_MAGIC.length + 1));
  if (version !== LOG_VERSION) {
    throw new KernelError(
      'BAD_LOG',
      `${name}: log format version ${header.slice(LOG_MAGIC.length + 1)} is not supported (this int3 reads version ${LOG_VERSION})`,
    );
  }
  if (lines[lines.length - 1] !== '') {
    throw new KernelError('BAD_LOG', `${name}: truncated (line ${lines.length} has no newline)`);
  }
  const entries: LogEntry[] = [];
  for (let i = 1; i < lines.length - 1; i++) {
    const line = lines[i];
    const where = `${name}: line ${i + 1}`;
    const m = /^([0-9a-f]{8}) (.*)$/.exec(line);
    if (!m) throw new KernelError('BAD_LOG', `${where}: corrupt (not '<crc32> <json>')`);
    const sum = crc32(encoder.encode(m[2]));
    if (sum !== Number.parseInt(m[1], 16)) {
      throw new KernelError(
        'BAD_LOG',
        `${where}: corrupt (checksum ${m[1]} does not match ${sum.toString(16).padStart(8, '0')})`,
      );
    }
    let entry: unknown;
    try {
      entry = JSON.parse(m[2], reviver);
    } catch {
      throw new KernelError('BAD_LOG', `${where}: corrupt (invalid JSON)`);
    }
    if (!entry || typeof entry !== 'object' || typeof (entry as LogEntry).type !== 'string') {
      throw new KernelError('BAD_LOG', `${where}: corrupt (an entry needs a string 'type')`);
    }
    entries.push(entry as LogEntry);
  }
  return entries;
}
