/*
 * Host side of the function-level differential test: reads one call per line on stdin, runs the corpus
 * function natively and prints its result and every buffer after the call.
 *
 *   in:  <fn> <a0> <a1> <a2> <a3> <a4> <a5> <nbuf> { <slot> <size> <hex|-> }*      (numbers in hex)
 *   out: <lo> <hi> { <hex|-> }*
 *
 * A buffer replaces argument <slot> with a pointer to <size> bytes holding <hex>. The dispatcher
 * (generated from the test's manifest) casts each argument to its C type and normalises the result
 * to 64 bits (zero- or sign-extended as its C type says); 128-bit results set <hi>.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BUFS 6

uint64_t int3_dispatch(unsigned fn, const uint64_t *a, uint64_t *hi);

static int hexval(int c)
{
	return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

static void print_hex(const uint8_t *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	if (n == 0) {
		putchar('-');
		return;
	}
	for (size_t i = 0; i < n; i++) {
		putchar(digits[p[i] >> 4]);
		putchar(digits[p[i] & 15]);
	}
}

int main(void)
{
	char *line = NULL;
	size_t cap = 0;

	while (getline(&line, &cap, stdin) > 0) {
		uint64_t a[6], hi = 0, lo;
		uint8_t *bufs[MAX_BUFS];
		size_t sizes[MAX_BUFS];
		unsigned fn, nbuf;
		char *p = line;

		fn = (unsigned)strtoul(p, &p, 16);
		for (int i = 0; i < 6; i++)
			a[i] = strtoull(p, &p, 16);
		nbuf = (unsigned)strtoul(p, &p, 16);
		if (nbuf > MAX_BUFS) {
			fprintf(stderr, "call-runner: too many buffers (%u)\n", nbuf);
			return 2;
		}
		for (unsigned b = 0; b < nbuf; b++) {
			unsigned slot = (unsigned)strtoul(p, &p, 16);
			size_t size = strtoull(p, &p, 16);

			while (*p == ' ')
				p++;
			/* 64-byte aligned, like the guest's buffers, in case alignment changes a code path. */
			bufs[b] = aligned_alloc(64, (size + 64) & ~(size_t)63);
			sizes[b] = size;
			if (*p == '-') {
				p++;
			} else {
				for (size_t i = 0; i < size; i++, p += 2)
					bufs[b][i] = (uint8_t)(hexval(p[0]) << 4 | hexval(p[1]));
			}
			a[slot] = (uint64_t)(uintptr_t)bufs[b];
		}
		lo = int3_dispatch(fn, a, &hi);
		printf("%llx %llx", (unsigned long long)lo, (unsigned long long)hi);
		for (unsigned b = 0; b < nbuf; b++) {
			putchar(' ');
			print_hex(bufs[b], sizes[b]);
			free(bufs[b]);
		}
		putchar('\n');
	}
	free(line);
	return 0;
}
