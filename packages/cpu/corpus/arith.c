/*
 * Integer arithmetic: signed and unsigned division and modulo with negative operands at every width,
 * division by constants (multiply-high sequences), 128-bit products and shifts (mul, imul, shld, shrd,
 * divq with a 128-bit dividend), carry chains. C's undefined cases (x / 0, INT_MIN / -1) are guarded here; the
 * instruction-level tests cover the #DE they would raise.
 */
#include "corpus.h"

int64_t div_s64(int64_t a, int64_t b)
{
	if (b == 0 || (b == -1 && a == INT64_MIN))
		return a;
	return a / b;
}

int64_t mod_s64(int64_t a, int64_t b)
{
	if (b == 0 || b == -1)
		return 0;
	return a % b;
}

uint64_t div_u64(uint64_t a, uint64_t b)
{
	return b ? a / b : ~a;
}

uint64_t mod_u64(uint64_t a, uint64_t b)
{
	return b ? a % b : a;
}

/* Quotient and remainder packed: 16 bits of each. */
int32_t divmod_s32(int32_t a, int32_t b)
{
	if (b == 0 || (b == -1 && a == INT32_MIN))
		return -1;
	return (int32_t)(((uint32_t)(a / b) << 16) ^ (uint32_t)(a % b));
}

uint32_t divmod_u32(uint32_t a, uint32_t b)
{
	if (b == 0)
		return 0;
	return (a / b) * 31 + a % b;
}

int16_t div_s16(int16_t a, int16_t b)
{
	if (b == 0)
		return 0;
	return (int16_t)(a / b + a % b);
}

int8_t mod_s8(int8_t a, int8_t b)
{
	if (b == 0)
		return 0;
	return (int8_t)(a % b);
}

uint8_t div_u8(uint8_t a, uint8_t b)
{
	if (b == 0)
		return 0xff;
	return (uint8_t)(a / b) ^ (uint8_t)(a % b);
}

/* Division by constants: gcc emits multiply-high and shift sequences (imul, sar, sub of the sign). */
int64_t div_const_s64(int64_t a)
{
	return a / 7 + a / -3 + a % 10 + a / 1000000007;
}

uint64_t div_const_u64(uint64_t a)
{
	return a / 7 + a / 10 + a % 3 + a / 0x123456789ull;
}

uint64_t mul_hi_u64(uint64_t a, uint64_t b)
{
	return (uint64_t)(((u128)a * b) >> 64);
}

int64_t mul_hi_s64(int64_t a, int64_t b)
{
	return (int64_t)(((i128)a * b) >> 64);
}

u128 mul_u128(uint64_t alo, uint64_t ahi, uint64_t blo, uint64_t bhi)
{
	u128 a = ((u128)ahi << 64) | alo, b = ((u128)bhi << 64) | blo;

	return a * b;
}

u128 shl_u128(uint64_t lo, uint64_t hi, uint32_t n)
{
	return (((u128)hi << 64) | lo) << (n & 127);
}

u128 shr_u128(uint64_t lo, uint64_t hi, uint32_t n)
{
	return (((u128)hi << 64) | lo) >> (n & 127);
}

i128 sar_i128(uint64_t lo, uint64_t hi, uint32_t n)
{
	return (i128)(((u128)hi << 64) | lo) >> (n & 127);
}

/*
 * 128-by-64 division with divq (hi is reduced first so the quotient fits and #DE cannot happen).
 * libgcc's __udivti3 is avoided on purpose: it is built with SSE, which kernel code never executes.
 */
uint64_t div_u128_u64(uint64_t lo, uint64_t hi, uint64_t d)
{
	uint64_t q, r;

	if (d == 0)
		return 0;
	hi %= d;
	__asm__("divq %4" : "=a"(q), "=d"(r) : "a"(lo), "d"(hi), "rm"(d) : "cc");
	return q ^ (r << 1);
}

/* Returns the product, or a marker when the signed product overflows (imul's OF). */
int64_t mul_overflow_s64(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_mul_overflow(a, b, &r))
		return INT64_MIN + (r & 0xffff);
	return r;
}

/* Sum of three with the carries counted (add, adc, setc). */
uint64_t add_overflow_u64(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t r, carries = 0;

	carries += __builtin_add_overflow(a, b, &r);
	carries += __builtin_add_overflow(r, c, &r);
	return r ^ (carries << 62);
}

/* A 128-bit subtraction (sub, sbb) folded to 64 bits, with the borrow out. */
int64_t sub_borrow_chain(uint64_t alo, uint64_t ahi, uint64_t blo, uint64_t bhi)
{
	u128 a = ((u128)ahi << 64) | alo, b = ((u128)bhi << 64) | blo;
	u128 d = a - b;

	return (int64_t)((uint64_t)d ^ (uint64_t)(d >> 64)) + (a < b);
}

uint64_t isqrt_u64(uint64_t x)
{
	uint64_t r = 0, bit = 1ull << 62;

	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}

static uint64_t mulmod_u64(uint64_t a, uint64_t b, uint64_t m)
{
	u128 p = (u128)a * b;
	uint64_t q, r;

	/* a, b < m, so the high half is below m and divq cannot fault. */
	__asm__("divq %4" : "=a"(q), "=d"(r) : "a"((uint64_t)p), "d"((uint64_t)(p >> 64)), "rm"(m) : "cc");
	(void)q;
	return r;
}

/* Modular exponentiation with 128-bit intermediate products reduced by divq. */
uint64_t powmod_u64(uint64_t b, uint64_t e, uint64_t m)
{
	uint64_t r, x;

	if (m == 0)
		return 0;
	r = 1 % m;
	x = b % m;
	e &= 0xffff;
	while (e) {
		if (e & 1)
			r = mulmod_u64(r, x, m);
		x = mulmod_u64(x, x, m);
		e >>= 1;
	}
	return r;
}
