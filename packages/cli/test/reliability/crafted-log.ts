import { readFileSync, writeFileSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { decodeLog, encodeLogLine, type LogEntry, logHeaderLine } from '@int3/kernel';

/** A log line around a JSON text as written, the checksum recomputed (what a forger would do). */
export function crcLine(json: string): string {
  return `${crc32(json).toString(16).padStart(8, '0')} ${json}\n`;
}

/** The entries of a log file. */
export function readEntries(path: string): LogEntry[] {
  return decodeLog(new Uint8Array(readFileSync(path)), path);
}

/** Writes entries as a log file, every checksum right. */
export function writeEntries(path: string, entries: readonly LogEntry[]): void {
  writeFileSync(path, logHeaderLine() + entries.map(encodeLogLine).join(''));
}

/** Writes a log of the config of `from` followed by raw JSON lines (each with a right checksum). */
export function writeCrafted(path: string, config: LogEntry, ...jsonLines: string[]): void {
  writeFileSync(path, logHeaderLine() + encodeLogLine(config) + jsonLines.map(crcLine).join(''));
}
