/* spin <n>: n rounds of a xorshift hash, entirely in user mode, then print the result. */
#include "libc.h"

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	unsigned long x = 88172645463325252UL;
	long i;

	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	printf("spin: %ld rounds, hash %lx\n", n, x);
	return 0;
}
