/* open <path>: open the path read-only and close it. */
#include "libc.h"

int main(int argc, char **argv)
{
	int fd;

	if (argc < 2)
		return fail("open", "usage: open <path>", -22);
	fd = open(argv[1], O_RDONLY, 0);
	if (fd < 0)
		return fail("open", argv[1], fd);
	printf("open: %s is fd %d\n", argv[1], fd);
	return close(fd) ? 1 : 0;
}
