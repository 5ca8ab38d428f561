import { KernelError } from '../kernel-error.js';
import { crc32 } from './crc32.js';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from './json-depth.js';

/** First line of every log file; the number is the format version. */
export const LOG_MAGIC = 'INT3LOG';
/**
 * The log format version this code writes and reads. Version 2 added the `end` entry and the rules of
 * event-log.md §1 (every input followed by its checkpoint, every field checked); version 3 the state
 * hash as a tree of page, group and task digests (event-log.md §2, checkpoint), whose values differ
 * from version 2's; version 4 the tasks of that tree in groups of 64 pids, so that a checkpoint
 * rehashes the tasks that changed and not a list of every task. Older logs are refused with a
 * message saying to record them again.
 */
export const LOG_VERSION = 4;

/** One entry of a log: a JSON object with a `type`. BigInts are allowed anywhere. */
export interface LogEntry {
  readonly type: string;
  readonly [key: string]: unknown;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });
const BIG = /^-?[0-9a-f]{1,16}$/;
const NEWLINE = 0x0a;

function replacer(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? { $big: value.toString(16) } : value;
}

/** Thrown by the reviver for a `$big` that is no 64-bit hex value; reported as a corrupt entry. */
class BadBig extends Error {}

function reviver(_key: string, value: unknown): unknown {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    if (typeof o.$big === 'string' && Object.keys(o).length === 1) {
      if (!BIG.test(o.$big)) throw new BadBig(o.$big.slice(0, 20));
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

/** `entry N` as messages name it (entry 0 is the config, on line 2). */
function corrupt(name: string, entry: number, what: string): KernelError {
  return new KernelError('BAD_LOG', `${name}: corrupt log: entry ${entry} (line ${entry + 2}): ${what}`);
}

/**
 * Parses a whole log file, line by line from the bytes (a log may be larger than the longest string
 * the host can hold). All or nothing: a foreign file, a version this code does not read, a bad
 * checksum, malformed or too deeply nested JSON or a truncated last line is an error naming the file,
 * the entry and why — never a partial result. What the entries say is checked by `validateLog`.
 *
 * @param name the file name used in error messages
 */
export function decodeLog(bytes: Uint8Array, name: string): LogEntry[] {
  const end = bytes.indexOf(NEWLINE);
  const header = end < 0 ? bytes.subarray(0, 16) : bytes.subarray(0, end);
  const magic = `${LOG_MAGIC} `;
  const headerText = String.fromCharCode(...header.subarray(0, 32));
  if (!headerText.startsWith(magic)) {
    throw new KernelError('BAD_LOG', `${name}: not an int3 log (no '${LOG_MAGIC}' header)`);
  }
  // The version is decimal digits without a sign, a leading zero or anything around them.
  const version = headerText.slice(magic.length);
  if (end < 0 || version !== String(LOG_VERSION)) {
    const shown = JSON.stringify(version);
    throw new KernelError(
      'BAD_LOG',
      /^[1-9][0-9]{0,5}$/.test(version) && end >= 0
        ? `${name}: log format version ${version} is not supported (this int3 reads version ${LOG_VERSION}; record the run again)`
        : `${name}: not an int3 log (header '${LOG_MAGIC} ${shown.slice(1, -1)}' is not '${LOG_MAGIC} <version>')`,
    );
  }
  if (bytes[bytes.length - 1] !== NEWLINE) {
    let lines = 1;
    for (let i = 0; i < bytes.length; i++) if (bytes[i] === NEWLINE) lines++;
    throw new KernelError('BAD_LOG', `${name}: truncated (line ${lines} has no newline)`);
  }
  const entries: LogEntry[] = [];
  for (let start = end + 1; start < bytes.length; ) {
    const stop = bytes.indexOf(NEWLINE, start);
    entries.push(decodeLine(bytes.subarray(start, stop), name, entries.length));
    start = stop + 1;
  }
  return entries;
}

function decodeLine(bytes: Uint8Array, name: string, n: number): LogEntry {
  let line: string;
  try {
    line = decoder.decode(bytes);
  } catch {
    throw corrupt(name, n, 'not UTF-8 text');
  }
  const m = /^([0-9a-f]{8}) /.exec(line);
  if (!m) throw corrupt(name, n, "not '<crc32> <json>'");
  const json = line.slice(9);
  const sum = crc32(bytes.subarray(9));
  if (sum !== Number.parseInt(m[1], 16)) {
    throw corrupt(name, n, `checksum ${m[1]} does not match ${sum.toString(16).padStart(8, '0')}`);
  }
  if (jsonDepthExceeds(json, MAX_JSON_DEPTH))
    throw corrupt(name, n, `too deeply nested (over ${MAX_JSON_DEPTH} levels)`);
  let entry: unknown;
  try {
    entry = JSON.parse(json, reviver);
  } catch (error) {
    if (error instanceof BadBig)
      throw corrupt(name, n, `'$big' ${JSON.stringify(error.message)} is not a 64-bit hex value`);
    throw corrupt(name, n, 'invalid JSON');
  }
  if (!entry || typeof entry !== 'object' || Array.isArray(entry) || typeof (entry as LogEntry).type !== 'string') {
    throw corrupt(name, n, "an entry is a JSON object with a string 'type'");
  }
  return entry as LogEntry;
}
