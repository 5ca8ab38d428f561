/*
 * Bit manipulation and flag consumers: popcount (libgcc's __popcountdi2 without -mpopcnt), bsr/bsf/tzcnt
 * from __builtin_clz/ctz, bswap, rotations at every width, bt/bts, setcc and cmov-heavy code, and
 * 8/16-bit arithmetic whose C semantics (promotion, then truncation) gcc implements with narrow ops.
 */
#include "corpus.h"

int32_t bits_popcount64(uint64_t x)
{
	return __builtin_popcountll(x);
}

int32_t bits_popcount32(uint32_t x)
{
	return __builtin_popcount(x) + __builtin_popcount(x >> 7) * 3;
}

int32_t bits_clz64(uint64_t x)
{
	return x ? __builtin_clzll(x) : 64;
}

int32_t bits_ctz64(uint64_t x)
{
	return x ? __builtin_ctzll(x) : 64;
}

int32_t bits_ctz32(uint32_t x)
{
	return x ? __builtin_ctz(x) : -1;
}

int32_t bits_ffs64(int64_t x)
{
	return __builtin_ffsll(x) * 3 + __builtin_clrsbll(x);
}

uint64_t bits_bswap64(uint64_t x)
{
	return __builtin_bswap64(x);
}

uint32_t bits_bswap32(uint32_t x)
{
	return __builtin_bswap32(x) ^ (x >> 3);
}

uint16_t bits_bswap16(uint16_t x)
{
	return __builtin_bswap16(x);
}

uint64_t bits_rotl64(uint64_t x, uint32_t n)
{
	n &= 63;
	return (x << n) | (x >> ((64 - n) & 63));
}

uint32_t bits_rotr32(uint32_t x, uint32_t n)
{
	n &= 31;
	return (x >> n) | (x << ((32 - n) & 31));
}

uint16_t bits_rotl16(uint16_t x, uint32_t n)
{
	n &= 15;
	return (uint16_t)((x << n) | (x >> ((16 - n) & 15)));
}

uint8_t bits_rotr8(uint8_t x, uint32_t n)
{
	n &= 7;
	return (uint8_t)((x >> n) | (x << ((8 - n) & 7)));
}

uint64_t bits_reverse64(uint64_t x)
{
	x = ((x >> 1) & 0x5555555555555555ull) | ((x & 0x5555555555555555ull) << 1);
	x = ((x >> 2) & 0x3333333333333333ull) | ((x & 0x3333333333333333ull) << 2);
	x = ((x >> 4) & 0x0f0f0f0f0f0f0f0full) | ((x & 0x0f0f0f0f0f0f0f0full) << 4);
	return __builtin_bswap64(x);
}

int32_t bits_parity64(uint64_t x)
{
	return __builtin_parityll(x) | (__builtin_parity((uint32_t)x >> 5) << 1);
}

uint64_t bits_next_pow2(uint64_t x)
{
	if (x <= 1)
		return 1;
	if (x > (1ull << 63))
		return 0;
	return 1ull << (64 - __builtin_clzll(x - 1));
}

/* Classic tricks: lowest set bit, clear lowest, average without overflow, sign-select, abs diff. */
uint64_t bits_tricks(uint64_t x, uint64_t y)
{
	uint64_t lowest = x & -x;
	uint64_t cleared = x & (x - 1);
	uint64_t avg = (x & y) + ((x ^ y) >> 1);
	uint64_t sel = ((int64_t)x >> 63) & y;
	uint64_t diff = x > y ? x - y : y - x;

	return lowest ^ (cleared << 1) ^ (avg * 3) ^ sel ^ (diff >> 2);
}

/* bt/bts/btr/btc patterns. */
uint64_t bits_test_set(uint64_t x, uint32_t n, uint32_t m)
{
	uint64_t r = x;

	n &= 63;
	m &= 63;
	if (r & (1ull << n))
		r &= ~(1ull << m);
	else
		r |= 1ull << m;
	r ^= 1ull << ((n + m) & 63);
	return r + ((x >> n) & 1) * 1000;
}

int64_t cmov_clamp(int64_t x, int64_t lo, int64_t hi)
{
	if (lo > hi) {
		int64_t t = lo;
		lo = hi;
		hi = t;
	}
	return x < lo ? lo : x > hi ? hi : x;
}

uint64_t cmov_minmax(int64_t a, int64_t b, uint64_t c, uint64_t d)
{
	int64_t smin = a < b ? a : b, smax = a > b ? a : b;
	uint64_t umin = c < d ? c : d, umax = c > d ? c : d;
	uint64_t mixed = (uint64_t)a < c ? (uint64_t)b : d;

	return (uint64_t)smin * 3 + (uint64_t)smax * 5 + umin * 7 + umax * 11 + mixed;
}

int64_t cmov_abs_sign(int64_t x, int32_t y)
{
	uint64_t ax = x < 0 ? -(uint64_t)x : (uint64_t)x;
	int32_t sign = (y > 0) - (y < 0);
	int32_t ay = y < 0 ? (int32_t)(0u - (uint32_t)y) : y;

	return (int64_t)(ax + (uint64_t)(int64_t)sign * 17 + (uint64_t)(uint32_t)ay);
}

/* Every setcc condition, packed into one word. */
uint64_t setcc_compare(int64_t a, int64_t b, uint64_t c, uint64_t d)
{
	uint64_t r = 0;

	r = (r << 1) | (a < b);
	r = (r << 1) | (a <= b);
	r = (r << 1) | (a > b);
	r = (r << 1) | (a >= b);
	r = (r << 1) | (a == b);
	r = (r << 1) | (a != b);
	r = (r << 1) | (c < d);
	r = (r << 1) | (c <= d);
	r = (r << 1) | (c > d);
	r = (r << 1) | (c >= d);
	r = (r << 1) | ((int32_t)a < (int32_t)c);
	r = (r << 1) | ((uint16_t)b > (uint16_t)d);
	r = (r << 1) | ((int8_t)a == (int8_t)d);
	r = (r << 1) | ((a + b) < 0);
	r = (r << 1) | __builtin_parityll(c & 0xff);
	r = (r << 1) | ((c & d) == 0);
	return r;
}

int8_t narrow_add_s8(int8_t a, int8_t b, int8_t c)
{
	int8_t s = (int8_t)(a + b);

	s = (int8_t)(s * c);
	return (int8_t)(s > 0 ? s - c : s + a);
}

uint8_t narrow_mul_u8(uint8_t a, uint8_t b)
{
	uint8_t p = (uint8_t)(a * b);

	return (uint8_t)(p + (a >> 1) - (uint8_t)(b << 3));
}

int16_t narrow_mix_s16(int16_t a, int16_t b, int16_t c)
{
	int16_t s = (int16_t)(a - b);

	s = (int16_t)(s * c);
	s = (int16_t)(s >> 3);
	return (int16_t)(s < a ? s ^ b : s + c);
}

uint16_t narrow_shift_u16(uint16_t a, uint32_t n, uint16_t b)
{
	n &= 15;
	return (uint16_t)(((uint16_t)(a << n) | (b >> n)) + (uint16_t)~a);
}

int32_t narrow_promote(int8_t a, uint8_t b, int16_t c, uint16_t d)
{
	return a * b + c * d - (a < b) + (c > (int16_t)d) * 7;
}

/* Variable shifts at all widths, signed and unsigned. */
uint64_t shift_var_mix(uint64_t x, uint32_t a, int64_t y, uint32_t b)
{
	uint32_t x32 = (uint32_t)x;
	int32_t y32 = (int32_t)y;

	a &= 63;
	b &= 31;
	return (x << a) ^ (x >> (63 - a)) ^ (uint64_t)(y >> a) ^ (uint64_t)(x32 << b) ^ (uint64_t)(uint32_t)(y32 >> b) ^
	       (uint64_t)(uint8_t)((uint8_t)x >> (b & 7));
}
