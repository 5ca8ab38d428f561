/**
 * A tracefs file: how it reads and how a write to it behaves (absent: the file is read-only, EACCES).
 * Files whose text can be huge (`trace`, `trace_pipe`) also read as a stream of chunks.
 */
export interface TraceFsFile {
  readonly kind: 'file';
  read(): string;
  /** The same text as {@link read}, in chunks (a consuming file consumes as the chunks are taken). */
  chunks?(): Iterable<string>;
  write?(text: string, append: boolean): void;
}

/** A tracefs directory: its entry names, in the order `ls -U` shows them. */
export interface TraceFsDir {
  readonly kind: 'dir';
  entries(): string[];
}

/** A node of the virtual filesystem. */
export type TraceFsNode = TraceFsFile | TraceFsDir;

/** A directory node over a fixed or computed list of names. */
export function dir(entries: () => string[]): TraceFsDir {
  return { kind: 'dir', entries };
}

/** A file node. */
export function file(read: () => string, write?: (text: string, append: boolean) => void): TraceFsFile {
  return write ? { kind: 'file', read, write } : { kind: 'file', read };
}

/** A file node read as a stream of chunks; `read` joins them. */
export function streamFile(
  chunks: () => Iterable<string>,
  write?: (text: string, append: boolean) => void,
): TraceFsFile {
  const read = () => [...chunks()].join('');
  return write ? { kind: 'file', read, chunks, write } : { kind: 'file', read, chunks };
}
