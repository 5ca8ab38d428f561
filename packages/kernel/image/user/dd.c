/*
 * dd <blocks>: write <blocks> 4 KiB blocks to /dev/ram0 with O_DIRECT, reopen, read them back
 * and compare. The ramdisk holds 64 blocks.
 */
#include "libc.h"

#define BLOCK 4096

static unsigned char buf[BLOCK] __attribute__((aligned(BLOCK)));

static void fill(long block)
{
	long i;

	for (i = 0; i < BLOCK; i++)
		buf[i] = (unsigned char)(block * 31 + i * 7);
}

static int check(long block)
{
	long i;

	for (i = 0; i < BLOCK; i++)
		if (buf[i] != (unsigned char)(block * 31 + i * 7))
			return 0;
	return 1;
}

int main(int argc, char **argv)
{
	long blocks = argc > 1 ? atol(argv[1]) : 4;
	long b, n;
	int fd;

	fd = open("/dev/ram0", O_RDWR | O_DIRECT, 0);
	if (fd < 0)
		return fail("dd", "/dev/ram0", fd);
	for (b = 0; b < blocks; b++) {
		fill(b);
		n = write(fd, buf, BLOCK);
		if (n != BLOCK)
			return fail("dd", "write", n);
	}
	close(fd);
	fd = open("/dev/ram0", O_RDONLY | O_DIRECT, 0);
	if (fd < 0)
		return fail("dd", "/dev/ram0", fd);
	for (b = 0; b < blocks; b++) {
		memset(buf, 0, BLOCK);
		n = read(fd, buf, BLOCK);
		if (n != BLOCK)
			return fail("dd", "read", n);
		if (!check(b))
			return fail("dd", "verify", b);
	}
	close(fd);
	printf("dd: %ld blocks of %d bytes written and verified\n", blocks, BLOCK);
	return 0;
}
