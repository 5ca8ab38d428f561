import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { KernelError, MAX_MODULE_BYTES } from '@int3/kernel';
import { CliError } from '../cli-error.js';
import { readBoundedFile } from '../runtime/read-bounded-file.js';
import { ShellSyntaxError, splitWords } from '../shell/split-words.js';
import type { TracedSession } from './traced-session.js';

/** One `--insmod 'file.ko name=value…'`: the module file and its parameters. */
export interface ModuleLoad {
  readonly file: string;
  readonly params: readonly string[];
}

/** Splits an `--insmod` value as sh does: the file, then `name=value` parameters. */
export function parseInsmod(line: string, command: string): ModuleLoad {
  let words: string[];
  try {
    words = splitWords(line).map((w) => w.text);
  } catch (error) {
    if (error instanceof ShellSyntaxError)
      throw new CliError('usage', `bad --insmod '${line}': ${error.message}`, command);
    throw error;
  }
  if (words.length === 0) throw new CliError('usage', 'empty --insmod: name a module file (foo.ko)', command);
  return { file: words[0], params: words.slice(1) };
}

/** Reads a module file; a missing one is insmod's error. */
export function readModuleFile(file: string): Uint8Array {
  return readBoundedFile(
    file,
    MAX_MODULE_BYTES,
    (why) =>
      new CliError(
        'failure',
        `insmod: ERROR: could not load module ${file}: ${why === 'no such file' ? 'No such file or directory' : why}`,
      ),
  );
}

/**
 * `insmod FILE name=value…` as a session input: the module's bytes and their sha256 go into the log
 * (so replay needs no file, and refuses bytes that were altered), then the loader links it and runs its
 * init. A module that does not link or whose init fails is insmod's error line; the machine goes on.
 *
 * @see kernel/module/main.c load_module()
 */
export function insmodModule(
  t: TracedSession,
  file: string,
  bytes: Uint8Array,
  params: readonly string[],
  /** Add the kernel's own reason, where no `dmesg` shows it (`--insmod` on the command line). */
  withKernelReason = false,
): void {
  try {
    t.session.apply({
      type: 'input:insmod',
      name: basename(file),
      data: Buffer.from(bytes).toString('base64'),
      sha256: createHash('sha256').update(bytes).digest('hex'),
      ...(params.length > 0 ? { params: [...params] } : {}),
    });
  } catch (error) {
    if (error instanceof KernelError) {
      const what = insmodStrerror(error);
      const why = withKernelReason && what !== error.message ? ` (the kernel log: ${error.message})` : '';
      throw new CliError('failure', `insmod: ERROR: could not insert module ${file}: ${what}${why}`);
    }
    throw error;
  }
}

/** Loads each `--insmod`, in order. */
export function insmodAll(t: TracedSession, loads: readonly ModuleLoad[]): void {
  for (const { file, params } of loads) insmodModule(t, file, readModuleFile(file), params, true);
}

/**
 * What insmod says of a failed load: kmod's words for the errnos it translates (a module that does
 * not link is ENOENT, "Unknown symbol in module"; the kernel log names each symbol), else the kernel's
 * own message.
 * @see kmod tools/insmod.c mod_strerror()
 */
function insmodStrerror(error: KernelError): string {
  if (error.code === 'ENOENT') return 'Unknown symbol in module';
  return error.message;
}
