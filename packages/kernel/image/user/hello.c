/* hello: print one line. */
#include "libc.h"

int main(int argc, char **argv)
{
	printf("Hello from int3, pid %d!\n", getpid());
	return 0;
}
