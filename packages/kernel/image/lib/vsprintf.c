/*
 * A small vsnprintf: flags '-' and '0', a width, the length modifiers h, l, ll, z, and the
 * conversions d i u x X o c s p %. Written for int3; behaves like lib/vsprintf.c on these.
 */
#include <linux/kernel.h>

struct printf_spec {
	unsigned int base;
	int width;
	bool is_signed;
	bool left;
	bool zero;
	bool upper;
};

/* Append one character if there is room; always advance so the full length is returned. */
static inline void put_char(char *buf, size_t size, size_t *pos, char c)
{
	if (*pos < size)
		buf[*pos] = c;
	(*pos)++;
}

static void pad(char *buf, size_t size, size_t *pos, int n, char c)
{
	while (n-- > 0)
		put_char(buf, size, pos, c);
}

static void number(char *buf, size_t size, size_t *pos, unsigned long num, const struct printf_spec *spec)
{
	const char *digits = spec->upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	int len = 0, width = spec->width;
	bool negative = spec->is_signed && (long)num < 0;

	if (negative)
		num = -num;
	do {
		tmp[len++] = digits[num % spec->base];
		num /= spec->base;
	} while (num);
	width -= len + negative;
	if (!spec->left && !spec->zero)
		pad(buf, size, pos, width, ' ');
	if (negative)
		put_char(buf, size, pos, '-');
	if (!spec->left && spec->zero)
		pad(buf, size, pos, width, '0');
	while (len)
		put_char(buf, size, pos, tmp[--len]);
	if (spec->left)
		pad(buf, size, pos, width, ' ');
}

static void string(char *buf, size_t size, size_t *pos, const char *s, const struct printf_spec *spec)
{
	int len;

	if (!s)
		s = "(null)";
	len = strlen(s);
	if (!spec->left)
		pad(buf, size, pos, spec->width - len, ' ');
	while (*s)
		put_char(buf, size, pos, *s++);
	if (spec->left)
		pad(buf, size, pos, spec->width - len, ' ');
}

/* Format into buf (always NUL-terminated when size > 0); returns the untruncated length. */
int vsnprintf(char *buf, size_t size, const char *fmt, va_list args)
{
	size_t pos = 0;
	int qualifier;

	for (; *fmt; fmt++) {
		struct printf_spec spec = { .base = 10 };
		unsigned long num;

		if (*fmt != '%') {
			put_char(buf, size, &pos, *fmt);
			continue;
		}
		fmt++;
		for (;; fmt++) {
			if (*fmt == '-')
				spec.left = true;
			else if (*fmt == '0')
				spec.zero = true;
			else
				break;
		}
		while (*fmt >= '0' && *fmt <= '9')
			spec.width = spec.width * 10 + (*fmt++ - '0');
		qualifier = 0;
		while (*fmt == 'l' || *fmt == 'z' || *fmt == 'h') {
			qualifier = *fmt == 'h' ? 'h' : 'l';
			fmt++;
		}
		switch (*fmt) {
		case 'c':
			put_char(buf, size, &pos, (char)va_arg(args, int));
			continue;
		case 's':
			string(buf, size, &pos, va_arg(args, const char *), &spec);
			continue;
		case 'p':
			spec.base = 16;
			spec.zero = true;
			spec.width = 16;
			number(buf, size, &pos, (unsigned long)va_arg(args, void *), &spec);
			continue;
		case 'd':
		case 'i':
			spec.is_signed = true;
			break;
		case 'u':
			break;
		case 'o':
			spec.base = 8;
			break;
		case 'X':
			spec.upper = true;
			/* fall through */
		case 'x':
			spec.base = 16;
			break;
		case '%':
			put_char(buf, size, &pos, '%');
			continue;
		default:
			put_char(buf, size, &pos, '%');
			if (!*fmt)
				goto out;
			put_char(buf, size, &pos, *fmt);
			continue;
		}
		if (qualifier == 'l')
			num = va_arg(args, unsigned long);
		else if (spec.is_signed)
			num = (long)va_arg(args, int);
		else
			num = va_arg(args, unsigned int);
		if (qualifier == 'h')
			num = spec.is_signed ? (unsigned long)(long)(short)num : (unsigned short)num;
		number(buf, size, &pos, num, &spec);
	}
out:
	if (size)
		buf[pos < size ? pos : size - 1] = '\0';
	return pos;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list args;
	int n;

	va_start(args, fmt);
	n = vsnprintf(buf, size, fmt, args);
	va_end(args);
	return n;
}

/* Like snprintf, but returns the length actually written (without the NUL). */
int scnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list args;
	int n;

	va_start(args, fmt);
	n = vsnprintf(buf, size, fmt, args);
	va_end(args);
	if ((size_t)n >= size)
		return size ? size - 1 : 0;
	return n;
}
