/* fork <n>: fork n children that exit with codes 1..n; reap them all and check every code came back. */
#include "libc.h"

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3;
	unsigned long seen = 0;
	long i;

	if (n < 1 || n > 63)
		return fail("fork", "n must be 1..63", -22);
	for (i = 1; i <= n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return fail("fork", "fork", pid);
		if (pid == 0) {
			printf("fork: child %ld is pid %d\n", i, getpid());
			exit(i);
		}
	}
	for (i = 0; i < n; i++) {
		int status = 0;
		pid_t pid = waitpid(-1, &status, 0);

		if (pid < 0)
			return fail("fork", "waitpid", pid);
		if (!WIFEXITED(status))
			return fail("fork", "child killed", WTERMSIG(status));
		seen |= 1UL << WEXITSTATUS(status);
	}
	if (seen != ((1UL << (n + 1)) - 2))
		return fail("fork", "exit codes", (long)seen);
	printf("fork: reaped %ld children\n", n);
	return 0;
}
