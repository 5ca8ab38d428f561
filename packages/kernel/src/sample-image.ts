import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KernelError } from './kernel-error.js';

/** The image directory of this package (sources, `vmlinux`, `user/bin/*`), from `src/` or `dist/`. */
export const IMAGE_DIR = join(dirname(dirname(fileURLToPath(import.meta.url))), 'image');

/** Path of the sample kernel image. */
export const SAMPLE_IMAGE_PATH = join(IMAGE_DIR, 'vmlinux');

/** Names of the sample workloads (`image/user/bin/*`). */
export const WORKLOADS: readonly string[] = [
  'cat',
  'dd',
  'fault',
  'fork',
  'hello',
  'mkdir',
  'net',
  'open',
  'spin',
  'syscall',
];

/** Reads the sample kernel image. */
export function readSampleImage(): Uint8Array {
  return readImageFile(SAMPLE_IMAGE_PATH);
}

/** Finds a sample workload's ELF by name, or undefined. */
export function sampleProgram(name: string): Uint8Array | undefined {
  if (!WORKLOADS.includes(name)) return undefined;
  return readImageFile(join(IMAGE_DIR, 'user', 'bin', name));
}

/** Reads a kernel or program file, with a clear error when it is missing. */
export function readImageFile(path: string): Uint8Array {
  if (!existsSync(path)) throw new KernelError('ENOENT', `cannot read ${path}: no such file`);
  return new Uint8Array(readFileSync(path));
}
