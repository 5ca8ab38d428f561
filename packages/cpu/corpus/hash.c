/* Checksums and hashes: byte loops, table lookups in .rodata, multiplies and rotates. */
#include "corpus.h"

/* Bitwise CRC-32 (IEEE, reflected). */
uint32_t hash_crc32(const uint8_t *p, uint64_t n)
{
	uint32_t crc = 0xffffffffu;

	for (uint64_t i = 0; i < n; i++) {
		crc ^= p[i];
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
	}
	return ~crc;
}

static const uint32_t crc32_nibble_table[16] = {
	0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac, 0x76dc4190, 0x6b6b51f4, 0x4db26158, 0x5005713c,
	0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c, 0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c,
};

/* CRC-32 with a 16-entry table: the same result as hash_crc32. */
uint32_t hash_crc32_nibble(const uint8_t *p, uint64_t n)
{
	uint32_t crc = 0xffffffffu;

	for (uint64_t i = 0; i < n; i++) {
		crc ^= p[i];
		crc = (crc >> 4) ^ crc32_nibble_table[crc & 15];
		crc = (crc >> 4) ^ crc32_nibble_table[crc & 15];
	}
	return ~crc;
}

/* CRC-16/CCITT-FALSE: 16-bit arithmetic throughout. */
uint16_t hash_crc16_ccitt(const uint8_t *p, uint64_t n)
{
	uint16_t crc = 0xffff;

	for (uint64_t i = 0; i < n; i++) {
		crc ^= (uint16_t)(p[i] << 8);
		for (int k = 0; k < 8; k++)
			crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ 0x1021) : (uint16_t)(crc << 1);
	}
	return crc;
}

uint32_t hash_fnv1a32(const uint8_t *p, uint64_t n)
{
	uint32_t h = 0x811c9dc5u;

	for (uint64_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x01000193u;
	return h;
}

uint64_t hash_fnv1a64(const uint8_t *p, uint64_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (uint64_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

uint32_t hash_adler32(const uint8_t *p, uint64_t n)
{
	uint32_t a = 1, b = 0;

	for (uint64_t i = 0; i < n; i++) {
		a = (a + p[i]) % 65521;
		b = (b + a) % 65521;
	}
	return (b << 16) | a;
}

/* A splitmix64/murmur3-style finaliser. */
uint64_t hash_mix64(uint64_t x, uint64_t seed)
{
	x += seed + 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31) ^ ((x << 17) | (x >> 47));
}

/*
 * Open addressing into a table of 2^(1 + (bits & 7)) slots: counts the probes needed to insert the
 * keys (at most one per slot). The table lives on the stack, so nothing survives the call.
 */
uint64_t hash_table_probe(const uint32_t *keys, uint64_t n, uint32_t bits)
{
	uint32_t mask = (2u << (bits & 7)) - 1;
	uint32_t table[256];
	uint8_t used[256];
	uint64_t probes = 0;

	for (uint32_t i = 0; i <= mask; i++)
		used[i] = 0;
	for (uint64_t i = 0; i < n && i <= mask; i++) {
		uint32_t slot = (keys[i] * 2654435761u) & mask;

		while (used[slot] && table[slot] != keys[i]) {
			slot = (slot + 1) & mask;
			probes++;
		}
		used[slot] = 1;
		table[slot] = keys[i];
	}
	return probes * 1000 + n;
}
