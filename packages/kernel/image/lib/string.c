/*
 * Memory and string helpers (lib/string.c, arch/x86/lib/memcpy_64.S). memcpy/memset/memmove
 * use `rep movsb`/`rep stosb`, so gcc cannot turn their bodies back into calls to themselves.
 */
#include <linux/string.h>

void *memcpy(void *dest, const void *src, size_t n)
{
	void *ret = dest;

	__asm__ __volatile__("rep movsb" : "+D"(dest), "+S"(src), "+c"(n) : : "memory");
	return ret;
}

void *memset(void *s, int c, size_t n)
{
	void *ret = s;

	__asm__ __volatile__("rep stosb" : "+D"(s), "+c"(n) : "a"(c) : "memory");
	return ret;
}

void *memmove(void *dest, const void *src, size_t n)
{
	void *ret = dest;

	if (dest <= src || (const char *)dest >= (const char *)src + n)
		return memcpy(dest, src, n);
	/* Overlapping with dest above src: copy backwards, last byte first. */
	dest = (char *)dest + n - 1;
	src = (const char *)src + n - 1;
	__asm__ __volatile__("std\n\trep movsb\n\tcld" : "+D"(dest), "+S"(src), "+c"(n) : : "memory");
	return ret;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *p = a, *q = b;

	for (; n; n--, p++, q++)
		if (*p != *q)
			return *p < *q ? -1 : 1;
	return 0;
}

size_t strlen(const char *s)
{
	const char *p = s;

	while (*p)
		p++;
	return p - s;
}

size_t strnlen(const char *s, size_t max)
{
	const char *p = s;

	while (max-- && *p)
		p++;
	return p - s;
}

int strcmp(const char *a, const char *b)
{
	unsigned char c1, c2;

	do {
		c1 = *a++;
		c2 = *b++;
		if (c1 != c2)
			return c1 < c2 ? -1 : 1;
	} while (c1);
	return 0;
}

int strncmp(const char *a, const char *b, size_t n)
{
	unsigned char c1, c2;

	while (n--) {
		c1 = *a++;
		c2 = *b++;
		if (c1 != c2)
			return c1 < c2 ? -1 : 1;
		if (!c1)
			break;
	}
	return 0;
}

char *strcpy(char *dest, const char *src)
{
	char *d = dest;

	while ((*d++ = *src++))
		;
	return dest;
}

/* Copy at most size-1 bytes and always terminate; returns the length copied. */
size_t strscpy(char *dest, const char *src, size_t size)
{
	size_t i = 0;

	if (!size)
		return 0;
	while (i + 1 < size && src[i]) {
		dest[i] = src[i];
		i++;
	}
	dest[i] = '\0';
	return i;
}

char *strchr(const char *s, int c)
{
	for (; *s != (char)c; s++)
		if (!*s)
			return NULL;
	return (char *)s;
}
