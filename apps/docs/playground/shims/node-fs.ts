import { Buffer } from 'buffer';
import { lookupFile } from './vfs.js';

/** `fs.existsSync` over the playground's files. */
export function existsSync(path: string): boolean {
  return lookupFile(String(path)) !== undefined;
}

/** `fs.readFileSync` over the playground's files: a Buffer, or a string with an encoding; ENOENT else. */
export function readFileSync(path: string | number, encoding?: string | { encoding?: string }): Buffer | string {
  const bytes = typeof path === 'string' ? lookupFile(path) : undefined;
  if (bytes === undefined) throw enoent(path);
  const buffer = Buffer.from(bytes);
  const enc = typeof encoding === 'string' ? encoding : encoding?.encoding;
  return enc === undefined ? buffer : buffer.toString(enc as BufferEncoding);
}

/** `fs.statSync`: a playground file is a regular file; anything else is ENOENT. */
export function statSync(path: string): { isFile(): boolean; isDirectory(): boolean; size: number } {
  const bytes = lookupFile(String(path));
  if (bytes === undefined) throw enoent(path);
  return { isFile: () => true, isDirectory: () => false, size: bytes.length };
}

/** `fs.writeFileSync`: the playground's files are read-only (a download is the page's business). */
export function writeFileSync(path: string): never {
  const error = new Error(`EROFS: read-only file system, open '${path}'`) as Error & { code: string };
  error.code = 'EROFS';
  throw error;
}

/** `fs.openSync`, `writeSync`, `closeSync` (the CLI's `-o FILE`): read-only here too. */
export const openSync = writeFileSync;
export const writeSync = writeFileSync;
export const closeSync = writeFileSync;
export const mkdirSync = writeFileSync;

function enoent(path: unknown): Error {
  const error = new Error(`ENOENT: no such file or directory, open '${String(path)}'`) as Error & { code: string };
  error.code = 'ENOENT';
  return error;
}

export default { existsSync, readFileSync, statSync, writeFileSync, openSync, writeSync, closeSync, mkdirSync };
