/*
 * Control flow: switch jump tables (absolute sign-extended tables under -mcmodel=kernel), sparse
 * switches, recursion, calls through function pointers, pushf via inline asm, and global data read
 * through absolute and RIP-relative addressing.
 */
#include "corpus.h"

/* A dense switch: gcc emits `jmp *table(,%reg,8)`. */
uint64_t switch_dense(uint32_t op, uint64_t a, uint64_t b)
{
	switch (op % 24) {
	case 0: return a + b;
	case 1: return a - b;
	case 2: return a * b;
	case 3: return b ? a / b : 0;
	case 4: return a & b;
	case 5: return a | b;
	case 6: return a ^ b;
	case 7: return a << (b & 63);
	case 8: return a >> (b & 63);
	case 9: return (uint64_t)((int64_t)a >> (b & 63));
	case 10: return ~a;
	case 11: return -a;
	case 12: return a == b;
	case 13: return a < b;
	case 14: return (int64_t)a < (int64_t)b;
	case 15: return a * 3 + b;
	case 16: return (a << 32) | (b & 0xffffffff);
	case 17: return (uint32_t)a * (uint32_t)b;
	case 18: return (uint64_t)(int64_t)(int32_t)a;
	case 19: return (uint64_t)(int64_t)(int16_t)b;
	case 20: return (uint8_t)a + (uint8_t)b;
	case 21: return a % 1000;
	/* 22 and 23 share the default. */
	default: return 0x5a5a5a5a5a5a5a5aull ^ op;
	}
}

/* A sparse switch: compare trees rather than a table. */
int64_t switch_sparse(int32_t key)
{
	switch (key) {
	case -1000000: return 1;
	case -77: return 2;
	case -1: return 3;
	case 0: return 4;
	case 3: return 5;
	case 100: return 6;
	case 4096: return 7;
	case 65535: return 8;
	case 1 << 20: return 9;
	case 0x7fffffff: return 10;
	default: return -(int64_t)key;
	}
}

/* A character-class state machine over a byte buffer (a switch on each byte). */
uint64_t switch_chars(const uint8_t *s, uint64_t n)
{
	uint64_t digits = 0, letters = 0, spaces = 0, other = 0, state = 0;

	for (uint64_t i = 0; i < n; i++) {
		switch (s[i]) {
		case '0': case '1': case '2': case '3': case '4':
		case '5': case '6': case '7': case '8': case '9':
			digits++;
			state = state * 3 + 1;
			break;
		case 'a': case 'e': case 'i': case 'o': case 'u':
			letters += 2;
			state ^= 0x55;
			break;
		case ' ': case '\t': case '\n':
			spaces++;
			state >>= 1;
			break;
		case 0:
			state += 1000;
			break;
		default:
			if ((s[i] | 0x20) >= 'a' && (s[i] | 0x20) <= 'z')
				letters++;
			else
				other++;
		}
	}
	return digits | letters << 16 | spaces << 32 | other << 48 | (state & 0xffff) << 8;
}

uint64_t rec_fib(uint32_t n)
{
	n &= 31;
	if (n > 16)
		n = 16;
	return n < 2 ? n : rec_fib(n - 1) + rec_fib(n - 2);
}

static uint64_t ackermann(uint64_t m, uint64_t n)
{
	if (m == 0)
		return n + 1;
	if (n == 0)
		return ackermann(m - 1, 1);
	return ackermann(m - 1, ackermann(m, n - 1));
}

/* Deep, irregular recursion; bounded to m <= 2, n <= 15. */
uint64_t rec_ackermann(uint32_t m, uint32_t n)
{
	return ackermann(m % 3, n % 16);
}

uint64_t rec_gcd(uint64_t a, uint64_t b)
{
	return b == 0 ? a : rec_gcd(b, a % b);
}

static int64_t tree_sum(const int32_t *a, uint64_t lo, uint64_t hi, uint32_t depth)
{
	if (hi - lo <= 2) {
		int64_t s = 0;

		for (uint64_t i = lo; i < hi; i++)
			s += (int64_t)a[i] * (int64_t)(depth + 1);
		return s;
	}
	uint64_t mid = lo + (hi - lo) / 2;

	return tree_sum(a, lo, mid, depth + 1) - tree_sum(a, mid, hi, depth + 1);
}

/* Divide-and-conquer over a signed array. */
int64_t rec_tree_sum(const int32_t *a, uint64_t n)
{
	return n ? tree_sum(a, 0, n, 0) : 0;
}

typedef uint64_t (*binop_t)(uint64_t, uint64_t);

static uint64_t op_add(uint64_t a, uint64_t b) { return a + b; }
static uint64_t op_xor_rot(uint64_t a, uint64_t b) { return (a ^ b) << 13 | (a ^ b) >> 51; }
static uint64_t op_mul(uint64_t a, uint64_t b) { return a * (b | 1); }
static uint64_t op_sub_shift(uint64_t a, uint64_t b) { return (a - b) >> 3 ^ a; }

static binop_t const binops[4] = { op_add, op_xor_rot, op_mul, op_sub_shift };

/* Indirect calls through a table in .rodata, chosen by data. */
uint64_t fnptr_apply(uint32_t sel, uint64_t a, uint64_t b, uint32_t rounds)
{
	rounds &= 63;
	for (uint32_t i = 0; i < rounds; i++) {
		a = binops[(sel + i) & 3](a, b);
		b += i;
	}
	return a;
}

static uint64_t fold(const uint64_t *a, uint64_t n, binop_t f, uint64_t acc)
{
	for (uint64_t i = 0; i < n; i++)
		acc = f(acc, a[i]);
	return acc;
}

/* A function pointer passed as an argument (the call cannot be devirtualised in fold's loop). */
uint64_t fnptr_fold(const uint64_t *a, uint64_t n, uint32_t sel)
{
	return fold(a, n, binops[sel & 3], sel);
}

#define ARITH_FLAGS 0x8d5ull /* OF SF ZF AF PF CF */

/* RFLAGS after a 64-bit add, read with pushf. */
uint64_t flags_after_add(uint64_t a, uint64_t b)
{
	uint64_t flags;

	__asm__ volatile("add %2, %1\n\tpushfq\n\tpopq %0" : "=r"(flags), "+r"(a) : "r"(b) : "cc");
	return (flags & ARITH_FLAGS) | (a << 12);
}

uint64_t flags_after_sub(uint64_t a, uint64_t b)
{
	uint64_t flags;

	__asm__ volatile("sub %2, %1\n\tpushfq\n\tpopq %0" : "=r"(flags), "+r"(a) : "r"(b) : "cc");
	return (flags & ARITH_FLAGS) | (a << 12);
}

/* RFLAGS after an 8-bit shift left by a count of 1..7 (SF ZF PF CF defined; OF only for 1). */
uint64_t flags_after_shl8(uint8_t a, uint8_t n)
{
	uint64_t flags;
	uint8_t count = (uint8_t)((n % 7) + 1);
	uint64_t mask = count == 1 ? 0x8c5 : 0xc5;

	__asm__ volatile("shlb %%cl, %1\n\tpushfq\n\tpopq %0" : "=r"(flags), "+q"(a) : "c"(count) : "cc");
	return (flags & mask) | ((uint64_t)a << 12);
}

uint64_t global_table[8] = {
	0x0123456789abcdefull, 0xfedcba9876543210ull, 1, 2, 0x8000000000000000ull, 0xffffffffffffffffull, 42, 0,
};

uint32_t global_counter_seed = 0xdeadbeef;

/* Global data read by index (absolute 32-bit sign-extended addresses under -mcmodel=kernel). */
uint64_t global_read(uint32_t i)
{
	return global_table[i & 7] ^ global_counter_seed;
}

/* Global data read with an explicitly RIP-relative operand. */
uint64_t global_rip_relative(void)
{
	uint64_t v;
	uint32_t s;

	__asm__("movq global_table+8(%%rip), %0" : "=r"(v));
	__asm__("movl global_counter_seed(%%rip), %0" : "=r"(s));
	return v + s;
}

uint64_t collatz_steps(uint64_t x)
{
	uint64_t steps = 0;

	x = (x & 0xffffffffull) | 1;
	while (x != 1 && steps < 1000) {
		x = (x & 1) ? 3 * x + 1 : x >> 1;
		steps++;
	}
	return steps;
}
