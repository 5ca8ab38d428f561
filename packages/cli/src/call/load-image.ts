import { fileURLToPath } from 'node:url';
import { ElfError, type ElfFile, parseElf, SymbolTable, sampleElfUrl } from '@int3/cpu';
import { CliError } from '../cli-error.js';
import { readBoundedFile } from '../runtime/read-bounded-file.js';

/** The largest image (`--image`) a command reads. */
export const MAX_IMAGE_BYTES = 256 * 1024 * 1024;

/** A parsed, linked image with its symbols. */
export interface GuestImage {
  readonly path: string;
  readonly bytes: Uint8Array;
  readonly file: ElfFile;
  readonly symbols: SymbolTable;
}

/**
 * Reads and parses an ET_EXEC image (the sample image when `path` is undefined). A missing, unreadable
 * or malformed file is a usage {@link CliError} whose message says which file and what is wrong.
 */
export function loadImage(path: string | undefined, command: string): GuestImage {
  const file = path ?? fileURLToPath(sampleElfUrl());
  const what = path === undefined ? 'sample image' : 'image';
  const bytes = readBoundedFile(
    file,
    MAX_IMAGE_BYTES,
    (reason) => new CliError('usage', `cannot read ${what} '${file}': ${reason}`, command),
  );
  try {
    const elf = parseElf(bytes, file);
    if (elf.type !== 'exec') {
      throw new CliError(
        'usage',
        `image '${file}' is a relocatable object (ET_REL); link it into an executable`,
        command,
      );
    }
    return { path: file, bytes, file: elf, symbols: SymbolTable.fromElf(elf) };
  } catch (error) {
    if (error instanceof ElfError) throw new CliError('usage', `bad image: ${error.message}`, command);
    throw error;
  }
}
