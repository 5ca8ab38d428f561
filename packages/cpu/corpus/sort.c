/* Sorting and searching: loops, compares, recursion, signed and unsigned element types. */
#include "corpus.h"

static uint64_t checksum_u64(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ull + (h >> 29);
}

/* Insertion sort of n u32 values in place; returns a position-weighted checksum. */
uint64_t sort_insertion_u32(uint32_t *a, uint64_t n)
{
	uint64_t h = 0;

	for (uint64_t i = 1; i < n; i++) {
		uint32_t v = a[i];
		uint64_t j = i;

		while (j > 0 && a[j - 1] > v) {
			a[j] = a[j - 1];
			j--;
		}
		a[j] = v;
	}
	for (uint64_t i = 0; i < n; i++)
		h = checksum_u64(h, a[i] + i);
	return h;
}

static void quick_i64(int64_t *a, int64_t lo, int64_t hi)
{
	while (lo < hi) {
		int64_t pivot = a[lo + (hi - lo) / 2];
		int64_t i = lo, j = hi;

		while (i <= j) {
			while (a[i] < pivot)
				i++;
			while (a[j] > pivot)
				j--;
			if (i <= j) {
				int64_t t = a[i];

				a[i++] = a[j];
				a[j--] = t;
			}
		}
		/* Recurse into the smaller half, loop on the larger: bounded stack depth. */
		if (j - lo < hi - i) {
			quick_i64(a, lo, j);
			lo = i;
		} else {
			quick_i64(a, i, hi);
			hi = j;
		}
	}
}

/* Quicksort of n signed 64-bit values in place; returns the number of descents (a[i] > a[i+1]) left. */
uint64_t sort_quick_i64(int64_t *a, uint64_t n)
{
	uint64_t bad = 0;

	if (n > 1)
		quick_i64(a, 0, (int64_t)n - 1);
	for (uint64_t i = 1; i < n; i++)
		bad += a[i - 1] > a[i];
	return bad;
}

static void sift_down_u16(uint16_t *a, uint64_t root, uint64_t end)
{
	while (2 * root + 1 < end) {
		uint64_t child = 2 * root + 1;

		if (child + 1 < end && a[child] < a[child + 1])
			child++;
		if (a[root] >= a[child])
			return;
		uint16_t t = a[root];
		a[root] = a[child];
		a[child] = t;
		root = child;
	}
}

/* Heap sort of n u16 values in place; returns the sum of a[i] * (i + 1). */
uint64_t sort_heap_u16(uint16_t *a, uint64_t n)
{
	uint64_t sum = 0;

	for (uint64_t i = n / 2; i-- > 0;)
		sift_down_u16(a, i, n);
	for (uint64_t end = n; end > 1; end--) {
		uint16_t t = a[0];
		a[0] = a[end - 1];
		a[end - 1] = t;
		sift_down_u16(a, 0, end - 1);
	}
	for (uint64_t i = 0; i < n; i++)
		sum += (uint64_t)a[i] * (i + 1);
	return sum;
}

/* Lower-bound binary search over a (not necessarily sorted) u32 array: the first index it settles on. */
uint64_t search_binary_u32(const uint32_t *a, uint64_t n, uint32_t key)
{
	uint64_t lo = 0, hi = n;

	while (lo < hi) {
		uint64_t mid = lo + ((hi - lo) >> 1);

		if (a[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
