/*
 * The int3 C corpus: freestanding kernel-style functions that gcc compiles for both the emulator
 * (an ET_EXEC image at 0xffffffff81000000, -mcmodel=kernel) and the host (the differential harness).
 * Every function takes at most six integer or pointer arguments and has no state that survives a call,
 * so a batch of calls gives the same results in any order. To add a function: declare it here, define
 * it in one of the .c files, and describe its arguments in test/support/corpus-manifest.ts.
 */
#ifndef INT3_CORPUS_H
#define INT3_CORPUS_H

#include <stdint.h>

typedef unsigned __int128 u128;
typedef __int128 i128;

/* sort.c */
uint64_t sort_insertion_u32(uint32_t *a, uint64_t n);
uint64_t sort_quick_i64(int64_t *a, uint64_t n);
uint64_t sort_heap_u16(uint16_t *a, uint64_t n);
uint64_t search_binary_u32(const uint32_t *a, uint64_t n, uint32_t key);

/* hash.c */
uint32_t hash_crc32(const uint8_t *p, uint64_t n);
uint32_t hash_crc32_nibble(const uint8_t *p, uint64_t n);
uint16_t hash_crc16_ccitt(const uint8_t *p, uint64_t n);
uint32_t hash_fnv1a32(const uint8_t *p, uint64_t n);
uint64_t hash_fnv1a64(const uint8_t *p, uint64_t n);
uint32_t hash_adler32(const uint8_t *p, uint64_t n);
uint64_t hash_mix64(uint64_t x, uint64_t seed);
uint64_t hash_table_probe(const uint32_t *keys, uint64_t n, uint32_t bits);

/* arith.c */
int64_t div_s64(int64_t a, int64_t b);
int64_t mod_s64(int64_t a, int64_t b);
uint64_t div_u64(uint64_t a, uint64_t b);
uint64_t mod_u64(uint64_t a, uint64_t b);
int32_t divmod_s32(int32_t a, int32_t b);
uint32_t divmod_u32(uint32_t a, uint32_t b);
int16_t div_s16(int16_t a, int16_t b);
int8_t mod_s8(int8_t a, int8_t b);
uint8_t div_u8(uint8_t a, uint8_t b);
int64_t div_const_s64(int64_t a);
uint64_t div_const_u64(uint64_t a);
uint64_t mul_hi_u64(uint64_t a, uint64_t b);
int64_t mul_hi_s64(int64_t a, int64_t b);
u128 mul_u128(uint64_t alo, uint64_t ahi, uint64_t blo, uint64_t bhi);
u128 shl_u128(uint64_t lo, uint64_t hi, uint32_t n);
u128 shr_u128(uint64_t lo, uint64_t hi, uint32_t n);
i128 sar_i128(uint64_t lo, uint64_t hi, uint32_t n);
uint64_t div_u128_u64(uint64_t lo, uint64_t hi, uint64_t d);
int64_t mul_overflow_s64(int64_t a, int64_t b);
uint64_t add_overflow_u64(uint64_t a, uint64_t b, uint64_t c);
int64_t sub_borrow_chain(uint64_t alo, uint64_t ahi, uint64_t blo, uint64_t bhi);
uint64_t isqrt_u64(uint64_t x);
uint64_t powmod_u64(uint64_t b, uint64_t e, uint64_t m);

/* bits.c */
int32_t bits_popcount64(uint64_t x);
int32_t bits_popcount32(uint32_t x);
int32_t bits_clz64(uint64_t x);
int32_t bits_ctz64(uint64_t x);
int32_t bits_ctz32(uint32_t x);
int32_t bits_ffs64(int64_t x);
uint64_t bits_bswap64(uint64_t x);
uint32_t bits_bswap32(uint32_t x);
uint16_t bits_bswap16(uint16_t x);
uint64_t bits_rotl64(uint64_t x, uint32_t n);
uint32_t bits_rotr32(uint32_t x, uint32_t n);
uint16_t bits_rotl16(uint16_t x, uint32_t n);
uint8_t bits_rotr8(uint8_t x, uint32_t n);
uint64_t bits_reverse64(uint64_t x);
int32_t bits_parity64(uint64_t x);
uint64_t bits_next_pow2(uint64_t x);
uint64_t bits_tricks(uint64_t x, uint64_t y);
uint64_t bits_test_set(uint64_t x, uint32_t n, uint32_t m);
int64_t cmov_clamp(int64_t x, int64_t lo, int64_t hi);
uint64_t cmov_minmax(int64_t a, int64_t b, uint64_t c, uint64_t d);
int64_t cmov_abs_sign(int64_t x, int32_t y);
uint64_t setcc_compare(int64_t a, int64_t b, uint64_t c, uint64_t d);
int8_t narrow_add_s8(int8_t a, int8_t b, int8_t c);
uint8_t narrow_mul_u8(uint8_t a, uint8_t b);
int16_t narrow_mix_s16(int16_t a, int16_t b, int16_t c);
uint16_t narrow_shift_u16(uint16_t a, uint32_t n, uint16_t b);
int32_t narrow_promote(int8_t a, uint8_t b, int16_t c, uint16_t d);
uint64_t shift_var_mix(uint64_t x, uint32_t a, int64_t y, uint32_t b);

/* control.c */
uint64_t switch_dense(uint32_t op, uint64_t a, uint64_t b);
int64_t switch_sparse(int32_t key);
uint64_t switch_chars(const uint8_t *s, uint64_t n);
uint64_t rec_fib(uint32_t n);
uint64_t rec_ackermann(uint32_t m, uint32_t n);
uint64_t rec_gcd(uint64_t a, uint64_t b);
int64_t rec_tree_sum(const int32_t *a, uint64_t n);
uint64_t fnptr_apply(uint32_t sel, uint64_t a, uint64_t b, uint32_t rounds);
uint64_t fnptr_fold(const uint64_t *a, uint64_t n, uint32_t sel);
uint64_t flags_after_add(uint64_t a, uint64_t b);
uint64_t flags_after_sub(uint64_t a, uint64_t b);
uint64_t flags_after_shl8(uint8_t a, uint8_t n);
uint64_t global_read(uint32_t i);
uint64_t global_rip_relative(void);
uint64_t collatz_steps(uint64_t x);

/* memory.c */
uint64_t struct_copy(uint64_t a, uint64_t b, uint32_t c);
uint64_t struct_array_update(uint8_t *buf, uint64_t n, uint32_t sel);
void mem_copy_bytes(uint8_t *dst, const uint8_t *src, uint64_t n);
void mem_fill_bytes(uint8_t *dst, uint8_t v, uint64_t n);
void mem_fill_u64(uint64_t *dst, uint64_t v, uint64_t n);
void mem_move_overlap(uint8_t *buf, uint64_t n, uint64_t shift);
int32_t mem_compare(const uint8_t *a, const uint8_t *b, uint64_t n);
uint64_t mem_reverse(uint8_t *buf, uint64_t n);
uint64_t str_length(const char *s);
int32_t str_compare(const char *a, const char *b);
int64_t str_to_i64(const char *s);
uint64_t str_count_words(const char *s);
uint64_t str_from_u64(char *out, uint64_t v, uint32_t base);
uint64_t str_upper(char *s);
uint64_t mem_hash_table(const uint64_t *keys, uint64_t n, uint64_t seed);
uint64_t mem_bitmap(uint64_t *bits, uint64_t nbits, uint64_t seed, uint32_t rounds);
uint64_t mem_matrix_mul(const int32_t *a, const int32_t *b, int32_t *c, uint32_t n);

#endif
