/* cat <path>: copy a file to stdout. */
#include "libc.h"

static char buf[512];

int main(int argc, char **argv)
{
	ssize_t n;
	int fd;

	if (argc < 2)
		return fail("cat", "usage: cat <path>", -22);
	fd = open(argv[1], O_RDONLY, 0);
	if (fd < 0)
		return fail("cat", argv[1], fd);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (write(1, buf, n) != n)
			return fail("cat", "write", -5);
	close(fd);
	return n < 0 ? fail("cat", "read", n) : 0;
}
