/* String helpers and a small printf. */
#include "libc.h"

size_t strlen(const char *s)
{
	const char *p = s;

	while (*p)
		p++;
	return p - s;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

void *memcpy(void *d, const void *s, size_t n)
{
	void *ret = d;

	__asm__ __volatile__("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
	return ret;
}

void *memset(void *d, int c, size_t n)
{
	void *ret = d;

	__asm__ __volatile__("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
	return ret;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *p = a, *q = b;

	for (; n; n--, p++, q++)
		if (*p != *q)
			return *p - *q;
	return 0;
}

long atol(const char *s)
{
	long v = 0;
	int neg = *s == '-';

	if (neg)
		s++;
	while (*s >= '0' && *s <= '9')
		v = v * 10 + (*s++ - '0');
	return neg ? -v : v;
}

unsigned short htons(unsigned short x)
{
	return (unsigned short)(x << 8 | x >> 8);
}

static void put(char *buf, size_t size, size_t *pos, char c)
{
	if (*pos + 1 < size)
		buf[*pos] = c;
	(*pos)++;
}

/* %d %i %u %x %s %c %p %%, with an optional l and a field width. */
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	size_t pos = 0;

	for (; *fmt; fmt++) {
		char tmp[24];
		int len = 0, width = 0, is_long = 0, base = 10, neg = 0;
		unsigned long v;
		const char *s;

		if (*fmt != '%') {
			put(buf, size, &pos, *fmt);
			continue;
		}
		fmt++;
		while (*fmt >= '0' && *fmt <= '9')
			width = width * 10 + (*fmt++ - '0');
		while (*fmt == 'l')
			is_long = 1, fmt++;
		if (*fmt == 'c' || *fmt == '%') {
			put(buf, size, &pos, *fmt == 'c' ? (char)va_arg(ap, int) : '%');
			continue;
		}
		if (*fmt == 's') {
			s = va_arg(ap, const char *);
			if (!s)
				s = "(null)";
			for (len = strlen(s); width > len; width--)
				put(buf, size, &pos, ' ');
			while (*s)
				put(buf, size, &pos, *s++);
			continue;
		}
		if (*fmt == 'd' || *fmt == 'i') {
			long x = is_long ? va_arg(ap, long) : va_arg(ap, int);

			neg = x < 0;
			v = neg ? -(unsigned long)x : (unsigned long)x;
		} else if (*fmt == 'p') {
			v = (unsigned long)va_arg(ap, void *);
			base = 16;
		} else {
			v = is_long ? va_arg(ap, unsigned long) : va_arg(ap, unsigned int);
			base = *fmt == 'x' ? 16 : 10;
		}
		do {
			tmp[len++] = "0123456789abcdef"[v % base];
			v /= base;
		} while (v);
		for (width -= len + neg; width > 0; width--)
			put(buf, size, &pos, ' ');
		if (neg)
			put(buf, size, &pos, '-');
		while (len)
			put(buf, size, &pos, tmp[--len]);
	}
	if (size)
		buf[pos < size ? pos : size - 1] = '\0';
	return pos;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

static int vdprintf(int fd, const char *fmt, va_list ap)
{
	char buf[512];
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);

	if (n > (int)sizeof(buf) - 1)
		n = sizeof(buf) - 1;
	return write(fd, buf, n);
}

int printf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vdprintf(1, fmt, ap);
	va_end(ap);
	return n;
}

int dprintf(int fd, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vdprintf(fd, fmt, ap);
	va_end(ap);
	return n;
}

int fail(const char *prog, const char *what, long err)
{
	dprintf(2, "%s: %s: error %ld\n", prog, what, err);
	return 1;
}
