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
export function statSync(path: string): ReturnType<typeof fileStat> {
  const bytes = lookupFile(String(path));
  if (bytes === undefined) throw enoent(path);
  return fileStat(bytes);
}

/** `fs.writeFileSync`: the playground's files are read-only (a download is the page's business). */
export function writeFileSync(path: string): never {
  const error = new Error(`EROFS: read-only file system, open '${path}'`) as Error & { code: string };
  error.code = 'EROFS';
  throw error;
}

/** The open flags the CLI's bounded reader and atomic writer pass (Linux's values). */
export const constants = { O_RDONLY: 0, O_WRONLY: 1, O_RDWR: 2, O_CREAT: 0o100, O_NONBLOCK: 0o4000 } as const;

/** Open playground files: their bytes and the read offset. */
const open = new Map<number, { bytes: Uint8Array; at: number }>();
let nextFd = 3;

/**
 * `fs.openSync`: a playground file opens for reading (the CLI's bounded reads of a module or a log);
 * opening for writing (`-o FILE`, `'w'`) is EROFS, as the files are read-only.
 */
export function openSync(path: string, flags: string | number = 'r'): number {
  const writes = typeof flags === 'string' ? flags !== 'r' : (flags & (constants.O_WRONLY | constants.O_RDWR)) !== 0;
  if (writes) return writeFileSync(path);
  const bytes = lookupFile(String(path));
  if (bytes === undefined) throw enoent(path);
  const fd = nextFd++;
  open.set(fd, { bytes, at: 0 });
  return fd;
}

/** `fs.fstatSync` of an open playground file: a regular file of its size. */
export function fstatSync(fd: number): ReturnType<typeof fileStat> {
  return fileStat(fileOf(fd).bytes);
}

/** `fs.readSync(fd, buffer, offset, length, null)`: the next bytes of an open file (0 at its end). */
export function readSync(fd: number, buffer: Uint8Array, offset: number, length: number): number {
  const f = fileOf(fd);
  const n = Math.max(0, Math.min(length, f.bytes.length - f.at));
  buffer.set(f.bytes.subarray(f.at, f.at + n), offset);
  f.at += n;
  return n;
}

/** `fs.closeSync` of an open playground file. */
export function closeSync(fd: number): void {
  fileOf(fd);
  open.delete(fd);
}

/** `fs.writeSync` and `fs.mkdirSync`: read-only here too. */
export const writeSync = writeFileSync;
export const mkdirSync = writeFileSync;

function fileOf(fd: number): { bytes: Uint8Array; at: number } {
  const f = open.get(fd);
  if (f !== undefined) return f;
  const error = new Error(`EBADF: bad file descriptor (${fd})`) as Error & { code: string };
  error.code = 'EBADF';
  throw error;
}

function fileStat(bytes: Uint8Array) {
  const no = () => false;
  return {
    isFile: () => true,
    isDirectory: no,
    isFIFO: no,
    isSocket: no,
    isCharacterDevice: no,
    isBlockDevice: no,
    size: bytes.length,
  };
}

function enoent(path: unknown): Error {
  const error = new Error(`ENOENT: no such file or directory, open '${String(path)}'`) as Error & { code: string };
  error.code = 'ENOENT';
  return error;
}

export default {
  constants,
  existsSync,
  readFileSync,
  statSync,
  fstatSync,
  writeFileSync,
  openSync,
  readSync,
  writeSync,
  closeSync,
  mkdirSync,
};
