import { kstrtoul } from './kstrto.js';

/** How a stored value prints in `trace`. */
export type PrintKind = 'u' | 's' | 'x' | 'char' | 'symbol' | 'string';

/**
 * A fetch type: how many bytes an argument stores, how it prints, and how the `format` file names it.
 *
 * @see kernel/trace/trace_probe.h struct fetch_type
 */
export interface FetchType {
  /** Type name as written after `:` (`u32`, `x64`, `string`, ...). Bitfields map to their container u-type. */
  readonly name: string;
  /** Bytes stored in the fixed part of the record (4 for the `__data_loc` word of strings). */
  readonly size: number;
  readonly isSigned: boolean;
  readonly isString: boolean;
  readonly print: PrintKind;
  /** The printf format in `print fmt` (`%u`, `0x%Lx`, `\"%s\"`, ...). */
  readonly fmt: string;
  /** The C type in the `format` file (`u8`, `s64`, `__data_loc char[]`). */
  readonly fmttype: string;
}

function t(
  name: string,
  size: number,
  isSigned: boolean,
  print: PrintKind,
  fmt: string,
  fmttype: string,
  isString = false,
): FetchType {
  return Object.freeze({ name, size, isSigned, isString, print, fmt, fmttype });
}

const STRING_FMT = '\\"%s\\"';

/**
 * The fetch type table (x86-64: `unsigned long` is 8 bytes, so `symbol` is a u64 alias).
 *
 * @see kernel/trace/trace_probe.c probe_fetch_types
 */
export const FETCH_TYPES: readonly FetchType[] = Object.freeze([
  t('string', 4, true, 'string', STRING_FMT, '__data_loc char[]', true),
  t('ustring', 4, true, 'string', STRING_FMT, '__data_loc char[]', true),
  t('symstr', 4, true, 'string', STRING_FMT, '__data_loc char[]', true),
  t('u8', 1, false, 'u', '%u', 'u8'),
  t('u16', 2, false, 'u', '%u', 'u16'),
  t('u32', 4, false, 'u', '%u', 'u32'),
  t('u64', 8, false, 'u', '%Lu', 'u64'),
  t('s8', 1, true, 's', '%d', 's8'),
  t('s16', 2, true, 's', '%d', 's16'),
  t('s32', 4, true, 's', '%d', 's32'),
  t('s64', 8, true, 's', '%Ld', 's64'),
  t('x8', 1, false, 'x', '0x%x', 'u8'),
  t('x16', 2, false, 'x', '0x%x', 'u16'),
  t('x32', 4, false, 'x', '0x%x', 'u32'),
  t('x64', 8, false, 'x', '0x%Lx', 'u64'),
  t('char', 1, false, 'char', "'%c'", 'u8'),
  t('symbol', 8, false, 'symbol', '%pS', 'u64'),
]);

/** The type of an argument written without `:TYPE`: `x` + BITS_PER_LONG. @see DEFAULT_FETCH_TYPE_STR */
export const DEFAULT_FETCH_TYPE = 'x64';

const BY_NAME = new Map(FETCH_TYPES.map((ft) => [ft.name, ft]));

/**
 * Finds a type by name; `undefined` means unknown. A bitfield `b<w>@<o>/<c>` resolves to the u-type of
 * its container size (8, 16, 32 or 64); the bitfield itself is checked later.
 *
 * @see kernel/trace/trace_probe.c find_fetch_type()
 */
export function findFetchType(type: string | undefined): FetchType | undefined {
  const name = type ?? DEFAULT_FETCH_TYPE;
  if (name[0] === 'b') {
    const slash = name.indexOf('/');
    if (slash < 0) return undefined;
    const bs = kstrtoul(name.slice(slash + 1), 0);
    if (bs === 8n || bs === 16n || bs === 32n || bs === 64n) return BY_NAME.get(`u${bs}`);
    return undefined;
  }
  return BY_NAME.get(name);
}
