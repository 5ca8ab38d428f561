/*
 * The four functions gcc may call even in freestanding code (struct copies, zeroing loops), as the
 * kernel provides them: string instructions with DF honoured (memmove copies backwards with std).
 */
#include "corpus.h"

typedef __SIZE_TYPE__ size_t;

void *memcpy(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
void *memmove(void *dst, const void *src, size_t n);
int memcmp(const void *a, const void *b, size_t n);

void *memcpy(void *dst, const void *src, size_t n)
{
	void *d = dst;

	__asm__ volatile("rep movsb" : "+D"(d), "+S"(src), "+c"(n) : : "memory");
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	void *d = dst;

	__asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
	return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
	if ((uintptr_t)dst <= (uintptr_t)src || (uintptr_t)dst >= (uintptr_t)src + n)
		return memcpy(dst, src, n);
	{
		uint8_t *d = (uint8_t *)dst + n - 1;
		const uint8_t *s = (const uint8_t *)src + n - 1;

		__asm__ volatile("std\n\trep movsb\n\tcld" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
	}
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const uint8_t *p = a, *q = b;

	for (size_t i = 0; i < n; i++) {
		if (p[i] != q[i])
			return p[i] - q[i];
	}
	return 0;
}
