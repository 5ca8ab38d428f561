/*
 * syscall <name> [<arguments>]: make one system call, as bpftrace's test program
 * (tests/testprogs/syscall.c) does, for probes to see it once:
 *   nanosleep [N]     sleep N ns (a number with no sign: 100, 1e8, 2.5e6; default 100 ns)
 *   open [PATH]       open(PATH, O_CREAT) and close it (default a file in /tmp)
 *   openat [PATH]     openat(AT_FDCWD, PATH, O_CREAT) and close it
 *   read [PATH]       read 0 bytes from PATH (created if missing)
 *   write [PATH]      write 0 bytes to PATH (created if missing)
 *   connect HOST PORT connect a TCP socket to HOST:PORT (IPv4 dotted quad) and close it
 * Nothing is printed on success; the exit status is 0, else 1.
 */
#include "libc.h"

#define TEMP_PATH "/tmp/syscall_gen_temp"
#define AT_FDCWD -100

static int openat(int dfd, const char *path, int flags, int mode)
{
	return syscall6(257, dfd, (long)path, flags, mode, 0, 0);
}

static int usage(void)
{
	printf("Usage:\n\tsyscall <syscall name> [<arguments>]\nSupported Syscalls:\n"
	       "\t nanosleep [$N] (default args: 100ns)\n\t open [<path>]\n\t openat [<path>]\n"
	       "\t read [<path>]\n\t write [<path>]\n\t connect <host> <port>\n");
	return 1;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * A non-negative decimal number, with an optional fraction and exponent, in whole ns (the
 * fraction of a ns dropped, but a positive time under 1 ns is 1 ns). -1 if it is not one.
 */
static long parse_ns(const char *s)
{
	unsigned long mant = 0;
	long scale = 0, exp = 0;
	int frac = 0, nonzero = 0;
	const char *p = s;

	if (!is_digit(*s) || !is_digit(s[strlen(s) - 1]))
		return -1;
	for (; is_digit(*p) || (*p == '.' && !frac); p++) {
		if (*p == '.') {
			frac = 1;
			continue;
		}
		if (mant > 99999999999999999UL)
			return -1;
		mant = mant * 10 + (*p - '0');
		nonzero |= *p != '0';
		scale -= frac;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+')
			p++;
		for (; is_digit(*p) && exp < 100; p++)
			exp = exp * 10 + (*p - '0');
	}
	if (*p)
		return -1;
	for (scale += exp; scale > 0; scale--) {
		if (mant > 999999999999999999UL)
			return -1;
		mant *= 10;
	}
	for (; scale < 0 && mant; scale++)
		mant /= 10;
	return mant == 0 && nonzero ? 1 : (long)mant;
}

static int gen_nanosleep(int argc, char **argv)
{
	struct timespec req = { .tv_sec = 0, .tv_nsec = 100 };
	long ns, r;

	if (argc > 2) {
		ns = parse_ns(argv[2]);
		if (ns < 0) {
			printf("Invalid argument: %s; the argument should be a non-negative number with no sign\n",
			       argv[2]);
			return 1;
		}
		req.tv_sec = ns / 1000000000L;
		req.tv_nsec = ns % 1000000000L;
	}
	r = nanosleep(&req, NULL);
	return r ? fail("syscall", "nanosleep", r) : 0;
}

static int gen_open(int argc, char **argv, int at)
{
	const char *path = argc > 2 ? argv[2] : TEMP_PATH;
	int fd = at ? openat(AT_FDCWD, path, O_CREAT, 0644) : open(path, O_CREAT, 0644);

	if (fd < 0)
		return fail("syscall", at ? "openat" : "open", fd);
	close(fd);
	return 0;
}

static int gen_read_write(int argc, char **argv, int writing)
{
	const char *path = argc > 2 ? argv[2] : TEMP_PATH;
	int fd = open(path, O_CREAT | (writing ? O_WRONLY : O_RDONLY), 0644);
	char buf[10];
	long r;

	if (fd < 0)
		return fail("syscall", "open", fd);
	r = writing ? write(fd, buf, 0) : read(fd, buf, 0);
	close(fd);
	return r < 0 ? fail("syscall", writing ? "write" : "read", r) : 0;
}

/* A dotted quad in network byte order, or 0 if `s` is not one. */
static unsigned int parse_ipv4(const char *s)
{
	unsigned int addr = 0;
	int part;

	for (part = 0; part < 4; part++) {
		long v = 0;

		if (!is_digit(*s))
			return 0;
		while (is_digit(*s) && v <= 255)
			v = v * 10 + (*s++ - '0');
		if (v > 255 || (part < 3 && *s++ != '.'))
			return 0;
		addr |= (unsigned int)v << (8 * part);
	}
	return *s ? 0 : addr;
}

static int gen_connect(int argc, char **argv)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	long port;
	int s;

	if (argc < 4) {
		printf("Indicate which host and port to connect.\n");
		return 1;
	}
	addr.sin_addr = parse_ipv4(argv[2]);
	port = atol(argv[3]);
	if (!addr.sin_addr || port < 1 || port > 65535 || !is_digit(argv[3][0])) {
		printf("Argument invalid\n");
		return 1;
	}
	addr.sin_port = htons(port);
	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0) {
		printf("Unable to create socket\n");
		return 1;
	}
	/* As bpftrace's: the attempt is what is traced, refused or not. */
	connect(s, &addr, sizeof(addr));
	close(s);
	return 0;
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "";

	if (argc < 2)
		return usage();
	if (!strcmp(name, "--help") || !strcmp(name, "-h"))
		return usage(), 0;
	if (!strcmp(name, "nanosleep"))
		return gen_nanosleep(argc, argv);
	if (!strcmp(name, "open") || !strcmp(name, "openat"))
		return gen_open(argc, argv, name[4] == 'a');
	if (!strcmp(name, "read") || !strcmp(name, "write"))
		return gen_read_write(argc, argv, name[0] == 'w');
	if (!strcmp(name, "connect"))
		return gen_connect(argc, argv);
	printf("%s is not supported yet\n", name);
	return usage();
}
