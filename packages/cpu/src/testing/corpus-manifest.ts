/**
 * The signature of every corpus function (`corpus/corpus.h`) in a form the harnesses can act on: C
 * types of integer arguments, which arguments are buffers (and how to fill them), which are buffer
 * lengths. The native dispatcher is generated from this table and the emulator side calls through it,
 * so a function missing here would simply go untested — `sample-image.spec.ts` checks the table
 * against the functions of the built image.
 */

/** A C integer type, by signedness and width. */
export type IntType = 'u8' | 'i8' | 'u16' | 'i16' | 'u32' | 'i32' | 'u64' | 'i64';

/** What a corpus function returns; 128-bit values come back in rdx:rax. */
export type ReturnType = IntType | 'u128' | 'i128' | 'void';

/** How a buffer's elements are generated. */
export type BufferContent =
  | { readonly kind: 'random' }
  | { readonly kind: 'small'; readonly max: number }
  | { readonly kind: 'zero' }
  | { readonly kind: 'bytes'; readonly alphabet: readonly number[] };

/** One argument of a corpus function. */
export type ArgSpec =
  | { readonly kind: 'int'; readonly type: IntType; readonly min?: bigint; readonly max?: bigint }
  | {
      readonly kind: 'buffer';
      readonly element: 1 | 2 | 4 | 8;
      readonly minLength: number;
      readonly maxLength: number;
      readonly content: BufferContent;
    }
  /** The element count of the buffer argument at index `of`. */
  | { readonly kind: 'length'; readonly of: number }
  /** A NUL-terminated string drawn from `alphabet`. */
  | { readonly kind: 'string'; readonly maxLength: number; readonly alphabet: string };

/** A corpus function's signature. */
export interface CorpusFunction {
  readonly name: string;
  readonly returns: ReturnType;
  readonly args: readonly ArgSpec[];
}

const int = (type: IntType, min?: bigint, max?: bigint): ArgSpec => ({
  kind: 'int',
  type,
  ...(min === undefined ? {} : { min }),
  ...(max === undefined ? {} : { max }),
});
const buffer = (element: 1 | 2 | 4 | 8, minLength: number, maxLength: number, content: BufferContent): ArgSpec => ({
  kind: 'buffer',
  element,
  minLength,
  maxLength,
  content,
});
const length = (of: number): ArgSpec => ({ kind: 'length', of });
const string = (maxLength: number, alphabet: string): ArgSpec => ({ kind: 'string', maxLength, alphabet });
const random: BufferContent = { kind: 'random' };
const small = (max: number): BufferContent => ({ kind: 'small', max });
const zero: BufferContent = { kind: 'zero' };
const ascii = (text: string): BufferContent => ({ kind: 'bytes', alphabet: [...text].map((c) => c.charCodeAt(0)) });
const fn = (name: string, returns: ReturnType, ...args: ArgSpec[]): CorpusFunction => ({ name, returns, args });

const WORDS = 'ab z-+09 \tAZ';

/** Every corpus function, in `corpus.h` order (the index is the native dispatcher's function number). */
export const CORPUS_FUNCTIONS: readonly CorpusFunction[] = [
  // sort.c
  fn('sort_insertion_u32', 'u64', buffer(4, 0, 40, random), length(0)),
  fn('sort_quick_i64', 'u64', buffer(8, 0, 48, random), length(0)),
  fn('sort_heap_u16', 'u64', buffer(2, 0, 40, small(50)), length(0)),
  fn('search_binary_u32', 'u64', buffer(4, 0, 32, small(20)), length(0), int('u32', 0n, 24n)),
  // hash.c
  fn('hash_crc32', 'u32', buffer(1, 0, 48, random), length(0)),
  fn('hash_crc32_nibble', 'u32', buffer(1, 0, 64, random), length(0)),
  fn('hash_crc16_ccitt', 'u16', buffer(1, 0, 48, random), length(0)),
  fn('hash_fnv1a32', 'u32', buffer(1, 0, 64, random), length(0)),
  fn('hash_fnv1a64', 'u64', buffer(1, 0, 64, random), length(0)),
  fn('hash_adler32', 'u32', buffer(1, 0, 64, random), length(0)),
  fn('hash_mix64', 'u64', int('u64'), int('u64')),
  fn('hash_table_probe', 'u64', buffer(4, 0, 64, small(40)), length(0), int('u32')),
  // arith.c
  fn('div_s64', 'i64', int('i64'), int('i64')),
  fn('mod_s64', 'i64', int('i64'), int('i64')),
  fn('div_u64', 'u64', int('u64'), int('u64')),
  fn('mod_u64', 'u64', int('u64'), int('u64')),
  fn('divmod_s32', 'i32', int('i32'), int('i32')),
  fn('divmod_u32', 'u32', int('u32'), int('u32')),
  fn('div_s16', 'i16', int('i16'), int('i16')),
  fn('mod_s8', 'i8', int('i8'), int('i8')),
  fn('div_u8', 'u8', int('u8'), int('u8')),
  fn('div_const_s64', 'i64', int('i64')),
  fn('div_const_u64', 'u64', int('u64')),
  fn('mul_hi_u64', 'u64', int('u64'), int('u64')),
  fn('mul_hi_s64', 'i64', int('i64'), int('i64')),
  fn('mul_u128', 'u128', int('u64'), int('u64'), int('u64'), int('u64')),
  fn('shl_u128', 'u128', int('u64'), int('u64'), int('u32', 0n, 140n)),
  fn('shr_u128', 'u128', int('u64'), int('u64'), int('u32', 0n, 140n)),
  fn('sar_i128', 'i128', int('u64'), int('u64'), int('u32', 0n, 140n)),
  fn('div_u128_u64', 'u64', int('u64'), int('u64'), int('u64')),
  fn('mul_overflow_s64', 'i64', int('i64'), int('i64')),
  fn('add_overflow_u64', 'u64', int('u64'), int('u64'), int('u64')),
  fn('sub_borrow_chain', 'i64', int('u64'), int('u64'), int('u64'), int('u64')),
  fn('isqrt_u64', 'u64', int('u64')),
  fn('powmod_u64', 'u64', int('u64'), int('u64'), int('u64')),
  // bits.c
  fn('bits_popcount64', 'i32', int('u64')),
  fn('bits_popcount32', 'i32', int('u32')),
  fn('bits_clz64', 'i32', int('u64')),
  fn('bits_ctz64', 'i32', int('u64')),
  fn('bits_ctz32', 'i32', int('u32')),
  fn('bits_ffs64', 'i32', int('i64')),
  fn('bits_bswap64', 'u64', int('u64')),
  fn('bits_bswap32', 'u32', int('u32')),
  fn('bits_bswap16', 'u16', int('u16')),
  fn('bits_rotl64', 'u64', int('u64'), int('u32')),
  fn('bits_rotr32', 'u32', int('u32'), int('u32')),
  fn('bits_rotl16', 'u16', int('u16'), int('u32')),
  fn('bits_rotr8', 'u8', int('u8'), int('u32')),
  fn('bits_reverse64', 'u64', int('u64')),
  fn('bits_parity64', 'i32', int('u64')),
  fn('bits_next_pow2', 'u64', int('u64')),
  fn('bits_tricks', 'u64', int('u64'), int('u64')),
  fn('bits_test_set', 'u64', int('u64'), int('u32'), int('u32')),
  fn('cmov_clamp', 'i64', int('i64'), int('i64'), int('i64')),
  fn('cmov_minmax', 'u64', int('i64'), int('i64'), int('u64'), int('u64')),
  fn('cmov_abs_sign', 'i64', int('i64'), int('i32')),
  fn('setcc_compare', 'u64', int('i64'), int('i64'), int('u64'), int('u64')),
  fn('narrow_add_s8', 'i8', int('i8'), int('i8'), int('i8')),
  fn('narrow_mul_u8', 'u8', int('u8'), int('u8')),
  fn('narrow_mix_s16', 'i16', int('i16'), int('i16'), int('i16')),
  fn('narrow_shift_u16', 'u16', int('u16'), int('u32'), int('u16')),
  fn('narrow_promote', 'i32', int('i8'), int('u8'), int('i16'), int('u16')),
  fn('shift_var_mix', 'u64', int('u64'), int('u32'), int('i64'), int('u32')),
  // control.c
  fn('switch_dense', 'u64', int('u32'), int('u64'), int('u64')),
  fn('switch_sparse', 'i64', int('i32')),
  fn('switch_chars', 'u64', buffer(1, 0, 64, ascii('0159aeiouxyzQ \t\n\0#')), length(0)),
  fn('rec_fib', 'u64', int('u32', 0n, 40n)),
  fn('rec_ackermann', 'u64', int('u32'), int('u32')),
  fn('rec_gcd', 'u64', int('u64'), int('u64')),
  fn('rec_tree_sum', 'i64', buffer(4, 0, 40, random), length(0)),
  fn('fnptr_apply', 'u64', int('u32'), int('u64'), int('u64'), int('u32')),
  fn('fnptr_fold', 'u64', buffer(8, 0, 24, random), length(0), int('u32')),
  fn('flags_after_add', 'u64', int('u64'), int('u64')),
  fn('flags_after_sub', 'u64', int('u64'), int('u64')),
  fn('flags_after_shl8', 'u64', int('u8'), int('u8')),
  fn('global_read', 'u64', int('u32')),
  fn('global_rip_relative', 'u64'),
  fn('collatz_steps', 'u64', int('u64')),
  // memory.c
  fn('struct_copy', 'u64', int('u64'), int('u64'), int('u32')),
  fn('struct_array_update', 'u64', buffer(8, 0, 16, random), length(0), int('u32')),
  fn('mem_copy_bytes', 'void', buffer(1, 64, 64, random), buffer(1, 0, 64, random), length(1)),
  fn('mem_fill_bytes', 'void', buffer(1, 64, 64, random), int('u8'), int('u64', 0n, 64n)),
  fn('mem_fill_u64', 'void', buffer(8, 32, 32, random), int('u64'), int('u64', 0n, 32n)),
  fn('mem_move_overlap', 'void', buffer(1, 0, 64, random), length(0), int('u64')),
  fn('mem_compare', 'i32', buffer(1, 32, 32, small(1)), buffer(1, 32, 32, small(1)), int('u64', 0n, 32n)),
  fn('mem_reverse', 'u64', buffer(1, 0, 64, random), length(0)),
  fn('str_length', 'u64', string(64, WORDS)),
  fn('str_compare', 'i32', string(6, 'ab'), string(6, 'ab')),
  fn('str_to_i64', 'i64', string(24, ' -+0123456789x')),
  fn('str_count_words', 'u64', string(48, WORDS)),
  fn('str_from_u64', 'u64', buffer(1, 72, 72, zero), int('u64'), int('u32')),
  fn('str_upper', 'u64', string(48, WORDS)),
  fn('mem_hash_table', 'u64', buffer(8, 0, 64, small(40)), length(0), int('u64')),
  fn('mem_bitmap', 'u64', buffer(8, 8, 8, random), int('u64', 0n, 512n), int('u64'), int('u32')),
  fn(
    'mem_matrix_mul',
    'u64',
    buffer(4, 64, 64, random),
    buffer(4, 64, 64, random),
    buffer(4, 64, 64, zero),
    int('u32'),
  ),
];
