/*
 * fault: first hand the kernel a bad pointer (write returns -EFAULT through the exception
 * table), then store through one in user mode: the task dies of SIGSEGV, the machine goes on.
 */
#include "libc.h"

/* volatile, so gcc neither folds the store nor flags the constant address at compile time */
static int *volatile bad_pointer = (int *)0x10;

int main(int argc, char **argv)
{
	long ret = write(1, (const void *)0x10, 4);

	printf("fault: write(1, 0x10, 4) = %ld\n", ret);
	printf("fault: now storing to 0x10\n");
	*bad_pointer = 1;
	printf("fault: still alive?\n");
	return 1;
}
