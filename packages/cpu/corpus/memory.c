/*
 * Memory: struct copies (rep movs under -Os), byte and word copy/fill loops, overlapping moves,
 * string walks, a hash table in a static .bss array, a bitmap and a small matrix product.
 */
#include "corpus.h"

struct record {
	uint64_t id;
	uint32_t flags;
	uint16_t kind;
	uint8_t tag;
	int8_t delta;
	uint64_t payload[9];
	char name[13];
};

static struct record make_record(uint64_t a, uint64_t b, uint32_t c)
{
	struct record r;

	r.id = a;
	r.flags = c;
	r.kind = (uint16_t)(b >> 3);
	r.tag = (uint8_t)c;
	r.delta = (int8_t)(a >> 7);
	for (int i = 0; i < 9; i++)
		r.payload[i] = a * (uint64_t)(i + 1) ^ b;
	for (int i = 0; i < 13; i++)
		r.name[i] = (char)('a' + (c + (uint32_t)i) % 26);
	return r;
}

static uint64_t record_digest(const struct record *r)
{
	uint64_t h = r->id ^ r->flags ^ ((uint64_t)r->kind << 32) ^ ((uint64_t)r->tag << 48) ^ (uint64_t)(int64_t)r->delta;

	for (int i = 0; i < 9; i++)
		h = h * 31 + r->payload[i];
	for (int i = 0; i < 13; i++)
		h = h * 7 + (uint8_t)r->name[i];
	return h;
}

/* Struct return by value, assignment and array-of-struct copies. */
uint64_t struct_copy(uint64_t a, uint64_t b, uint32_t c)
{
	struct record arr[3];
	struct record r = make_record(a, b, c);

	arr[0] = r;
	arr[1] = make_record(b, a, c >> 1);
	arr[2] = arr[c % 2];
	arr[2].payload[c % 9] += 1;
	r = arr[2];
	return record_digest(&r) ^ record_digest(&arr[0]) * 3 ^ record_digest(&arr[1]) * 5;
}

struct pair16 {
	uint16_t a;
	int16_t b;
	uint32_t c;
};

/* Updates an array of packed structs in a caller's buffer (n structs of 8 bytes). */
uint64_t struct_array_update(uint8_t *buf, uint64_t n, uint32_t sel)
{
	struct pair16 *p = (struct pair16 *)buf;
	uint64_t sum = 0;

	for (uint64_t i = 0; i < n; i++) {
		struct pair16 t = p[i];

		t.a = (uint16_t)(t.a + sel);
		t.b = (int16_t)(t.b - (int16_t)i);
		t.c ^= (uint32_t)t.a << 8;
		if (sel & 1)
			p[n - 1 - i] = t;
		else
			p[i] = t;
		sum += t.c + (uint64_t)(int64_t)t.b;
	}
	return sum;
}

void mem_copy_bytes(uint8_t *dst, const uint8_t *src, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		dst[i] = src[i];
}

void mem_fill_bytes(uint8_t *dst, uint8_t v, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		dst[i] = v;
}

void mem_fill_u64(uint64_t *dst, uint64_t v, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		dst[i] = v + i;
}

/* memmove within one buffer: shifts the first n - shift bytes right by shift (a backward copy). */
void mem_move_overlap(uint8_t *buf, uint64_t n, uint64_t shift)
{
	extern void *memmove(void *, const void *, __SIZE_TYPE__);

	shift %= n + 1;
	memmove(buf + shift, buf, n - shift);
	if (shift > 1)
		memmove(buf, buf + 1, shift - 1);
}

int32_t mem_compare(const uint8_t *a, const uint8_t *b, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		if (a[i] != b[i])
			return a[i] < b[i] ? -(int32_t)i - 1 : (int32_t)i + 1;
	}
	return 0;
}

uint64_t mem_reverse(uint8_t *buf, uint64_t n)
{
	uint64_t h = 0;

	for (uint64_t i = 0, j = n; i + 1 < j; i++, j--) {
		uint8_t t = buf[i];

		buf[i] = buf[j - 1];
		buf[j - 1] = t;
		h += t;
	}
	return h;
}

uint64_t str_length(const char *s)
{
	const char *p = s;

	while (*p)
		p++;
	return (uint64_t)(p - s);
}

int32_t str_compare(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return (int32_t)(uint8_t)*a - (int32_t)(uint8_t)*b;
}

/* A permissive atoi: optional sign, decimal digits, wraps on overflow. */
int64_t str_to_i64(const char *s)
{
	uint64_t v = 0;
	int neg = 0;

	while (*s == ' ')
		s++;
	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	while (*s >= '0' && *s <= '9')
		v = v * 10 + (uint64_t)(*s++ - '0');
	return (int64_t)(neg ? -v : v);
}

uint64_t str_count_words(const char *s)
{
	uint64_t words = 0;
	int in_word = 0;

	for (; *s; s++) {
		int space = *s == ' ' || *s == '\t' || *s == '\n';

		words += !space && !in_word;
		in_word = !space;
	}
	return words;
}

/* Formats v in base 2..36 into out (at least 66 bytes); returns the length. */
uint64_t str_from_u64(char *out, uint64_t v, uint32_t base)
{
	char tmp[65];
	uint64_t n = 0, len;

	base = base % 35 + 2;
	do {
		uint32_t d = (uint32_t)(v % base);

		tmp[n++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
		v /= base;
	} while (v);
	len = n;
	for (uint64_t i = 0; i < len; i++)
		out[i] = tmp[len - 1 - i];
	out[len] = 0;
	return len;
}

uint64_t str_upper(char *s)
{
	uint64_t changed = 0;

	for (; *s; s++) {
		if (*s >= 'a' && *s <= 'z') {
			*s = (char)(*s - 32);
			changed++;
		}
	}
	return changed;
}

#define HT_SIZE 256

static uint64_t ht_keys[HT_SIZE];
static uint32_t ht_counts[HT_SIZE];

/*
 * Counts duplicate keys with a hash table in static .bss arrays (cleared on entry, so no state
 * survives). Returns a digest of the table.
 */
uint64_t mem_hash_table(const uint64_t *keys, uint64_t n, uint64_t seed)
{
	uint64_t digest = 0;

	for (int i = 0; i < HT_SIZE; i++) {
		ht_keys[i] = 0;
		ht_counts[i] = 0;
	}
	if (n > HT_SIZE / 2)
		n = HT_SIZE / 2;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t k = keys[i] | 1;
		uint64_t slot = ((k ^ seed) * 0x9e3779b97f4a7c15ull) >> 56;

		while (ht_keys[slot] && ht_keys[slot] != k)
			slot = (slot + 1) & (HT_SIZE - 1);
		ht_keys[slot] = k;
		ht_counts[slot]++;
	}
	for (int i = 0; i < HT_SIZE; i++)
		digest = digest * 0x100000001b3ull + ht_keys[i] * ht_counts[i] + (uint64_t)i * ht_counts[i];
	return digest;
}

/* A sieve-like walk over a bitmap of nbits bits (bt/bts/btr patterns on memory). */
uint64_t mem_bitmap(uint64_t *bits, uint64_t nbits, uint64_t seed, uint32_t rounds)
{
	uint64_t set = 0;

	if (nbits == 0)
		return 0;
	rounds &= 255;
	for (uint32_t r = 0; r < rounds; r++) {
		uint64_t i = (seed = seed * 6364136223846793005ull + 1442695040888963407ull) >> 33;

		i %= nbits;
		if (bits[i / 64] & (1ull << (i % 64)))
			bits[i / 64] &= ~(1ull << (i % 64));
		else
			bits[i / 64] |= 1ull << (i % 64);
	}
	for (uint64_t w = 0; w < (nbits + 63) / 64; w++)
		set += (uint64_t)__builtin_popcountll(bits[w]);
	return set;
}

/* c = a * b for n x n int32 matrices (n at most 8), wrapping. Returns the trace. */
uint64_t mem_matrix_mul(const int32_t *a, const int32_t *b, int32_t *c, uint32_t n)
{
	uint64_t trace = 0;

	n &= 7;
	for (uint32_t i = 0; i < n; i++) {
		for (uint32_t j = 0; j < n; j++) {
			uint32_t s = 0;

			for (uint32_t k = 0; k < n; k++)
				s += (uint32_t)a[i * n + k] * (uint32_t)b[k * n + j];
			c[i * n + j] = (int32_t)s;
		}
		trace += (uint32_t)c[i * n + i];
	}
	return trace;
}
