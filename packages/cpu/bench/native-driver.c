/*
 * Native side of `pnpm bench` (bench/cpu.bench.mjs): the same corpus workloads, on the same
 * pseudo-random data, compiled by gcc -O2 for the host and timed with CLOCK_MONOTONIC.
 * Prints one line per workload: <name> <result hex> <nanoseconds per run>.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "corpus.h"

struct workload {
	const char *name;
	size_t bytes;
	uint64_t (*run)(uint8_t *buf);
};

static uint64_t sort_quick(uint8_t *b) { return sort_quick_i64((int64_t *)b, 65536); }
static uint64_t sort_heap(uint8_t *b) { return sort_heap_u16((uint16_t *)b, 65536); }
static uint64_t crc32_bitwise(uint8_t *b) { return hash_crc32(b, 262144); }
static uint64_t crc32_nibble(uint8_t *b) { return hash_crc32_nibble(b, 1 << 20); }
static uint64_t fnv1a64(uint8_t *b) { return hash_fnv1a64(b, 2 << 20); }
static uint64_t adler32(uint8_t *b) { return hash_adler32(b, 1 << 20); }
static uint64_t hash_table(uint8_t *b)
{
	uint64_t sum = 0;

	for (int i = 0; i < 50; i++)
		sum += mem_hash_table((const uint64_t *)b, 128, 7) + mem_hash_table((const uint64_t *)b + 128, 128, 9);
	return sum;
}

static uint64_t fib(uint8_t *b)
{
	uint64_t sum = 0;

	(void)b;
	for (int i = 0; i < 40; i++)
		sum += rec_fib(16);
	return sum;
}

/* Keep in step with WORKLOADS in cpu.bench.mjs (name, buffer size, calls, repeats). */
static const struct workload workloads[] = {
	{ "sort_quick_i64/64Ki", 65536 * 8, sort_quick },
	{ "sort_heap_u16/64Ki", 65536 * 2, sort_heap },
	{ "hash_crc32/256KiB", 262144, crc32_bitwise },
	{ "hash_crc32_nibble/1MiB", 1 << 20, crc32_nibble },
	{ "hash_fnv1a64/2MiB", 2 << 20, fnv1a64 },
	{ "hash_adler32/1MiB", 1 << 20, adler32 },
	{ "mem_hash_table/2x128x50", 256 * 8, hash_table },
	{ "rec_fib/16x40", 0, fib },
};

/* xorshift64 from seed 0x9e3779b97f4a7c15, little-endian, 8 bytes at a time (as the bench script). */
static void fill(uint8_t *buf, size_t bytes)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (size_t i = 0; i < bytes; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		for (int k = 0; k < 8 && i + k < bytes; k++)
			buf[i + k] = (uint8_t)(x >> (8 * k));
	}
}

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(void)
{
	uint8_t *buf = malloc(4 << 20);

	for (size_t w = 0; w < sizeof(workloads) / sizeof(workloads[0]); w++) {
		double total = 0;
		uint64_t result = 0;
		int runs = 0;

		/* Repeat (refilling the buffer, untimed) until 100 ms have been measured. */
		while (total < 1e8 || runs < 3) {
			fill(buf, workloads[w].bytes);
			double t0 = now_ns();
			result = workloads[w].run(buf);
			total += now_ns() - t0;
			runs++;
		}
		printf("%s %llx %.0f\n", workloads[w].name, (unsigned long long)result, total / runs);
	}
	free(buf);
	return 0;
}
