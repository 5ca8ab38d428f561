import { existsSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { SAMPLE_IMAGE_PATH } from '@int3/kernel';

/** Quotes a word for a POSIX shell when it needs it. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/**
 * The gdb command line that connects to a stub on `port`: on the sample kernel, its debug twin
 * `vmlinux.debug` (vmlinux plus DWARF) and the image directory as the source path, so `list`,
 * `info locals` and `bt` with arguments work; on another image, that image.
 */
export function gdbCommandLine(imagePath: string | undefined, host: string, port: number, cwd = process.cwd()): string {
  const remote = `target remote ${host === '127.0.0.1' ? '' : host}:${port}`;
  if (imagePath !== undefined) return `gdb ${shellWord(imagePath)} -ex '${remote}'`;
  const debug = `${SAMPLE_IMAGE_PATH}.debug`;
  if (!existsSync(debug)) return `gdb ${shellWord(relative(cwd, SAMPLE_IMAGE_PATH))} -ex '${remote}'`;
  const dir = shellWord(relative(cwd, dirname(SAMPLE_IMAGE_PATH)) || '.');
  return `gdb ${shellWord(relative(cwd, debug))} -ex 'directory ${dir}' -ex '${remote}'`;
}
