import { ElfError, type ElfErrorCode, hex } from './elf-error.js';

const decoder = new TextDecoder('utf-8');

/**
 * Little-endian, bounds-checked reads over an ELF file's bytes. Every structure is checked with
 * {@link ElfReader.require} before its fields are read, so a read can never run past the file.
 */
export class ElfReader {
  private readonly view: DataView;

  constructor(
    readonly bytes: Uint8Array,
    /** The file name for error messages. */
    readonly file: string | undefined,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get size(): number {
    return this.bytes.length;
  }

  /** A refusal naming this file. */
  error(code: ElfErrorCode, detail: string): ElfError {
    return new ElfError(code, detail, this.file);
  }

  /** Throws TRUNCATED unless `[offset, offset + length)` lies inside the file. */
  require(offset: number | bigint, length: number | bigint, what: string): number {
    const end = BigInt(offset) + BigInt(length);
    if (end > BigInt(this.size)) {
      throw this.error('TRUNCATED', `truncated: ${what} ends at ${hex(end)} beyond file size ${hex(this.size)}`);
    }
    return Number(offset);
  }

  u8(offset: number): number {
    return this.view.getUint8(offset);
  }

  u16(offset: number): number {
    return this.view.getUint16(offset, true);
  }

  u32(offset: number): number {
    return this.view.getUint32(offset, true);
  }

  u64(offset: number): bigint {
    return this.view.getBigUint64(offset, true);
  }

  i64(offset: number): bigint {
    return this.view.getBigInt64(offset, true);
  }

  /**
   * A NUL-terminated string at `index` inside the string table `[tableOffset, tableOffset + tableSize)`;
   * throws `code` if the index is outside the table or the string has no terminator inside it.
   */
  string(tableOffset: number, tableSize: number, index: number, code: ElfErrorCode, what: string): string {
    if (index >= tableSize) {
      throw this.error(code, `${what}: name offset ${hex(index)} beyond string table size ${hex(tableSize)}`);
    }
    const start = tableOffset + index;
    const end = this.bytes.indexOf(0, start);
    if (end < 0 || end >= tableOffset + tableSize) {
      throw this.error(code, `${what}: name at offset ${hex(index)} is not NUL-terminated inside its string table`);
    }
    return decoder.decode(this.bytes.subarray(start, end));
  }
}
