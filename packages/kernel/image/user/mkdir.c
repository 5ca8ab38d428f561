/* mkdir <path>: create a directory. */
#include "libc.h"

int main(int argc, char **argv)
{
	int err;

	if (argc < 2)
		return fail("mkdir", "usage: mkdir <path>", -22);
	err = mkdir(argv[1], 0755);
	if (err)
		return fail("mkdir", argv[1], err);
	printf("mkdir: created %s\n", argv[1]);
	return 0;
}
