/** A tracefs file: how it reads and how a write to it behaves (absent: the file is read-only, EACCES). */
export interface TraceFsFile {
  readonly kind: 'file';
  read(): string;
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
