/*
 * net <n>: over loopback TCP, a forked child connects to 127.0.0.1:7777 and sends n messages
 * with sendmsg; the parent accepts, reads until end of stream with recvmsg, and counts them.
 */
#include "libc.h"

#define PORT 7777
#define LOOPBACK 0x0100007f /* 127.0.0.1 in network byte order */

static int child(long n)
{
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons(PORT), .sin_addr = LOOPBACK };
	char body[32];
	long i;
	int s = socket(AF_INET, SOCK_STREAM, 0), err;

	if (s < 0)
		return fail("net", "socket", s);
	err = connect(s, &addr, sizeof(addr));
	if (err)
		return fail("net", "connect", err);
	for (i = 0; i < n; i++) {
		static char head[] = "message ";
		struct iovec iov[2] = {
			{ .iov_base = head, .iov_len = sizeof(head) - 1 },
			{ .iov_base = body, .iov_len = snprintf(body, sizeof(body), "%ld\n", i) },
		};
		struct msghdr msg = { .msg_iov = iov, .msg_iovlen = 2 };
		ssize_t sent = sendmsg(s, &msg, 0);

		if (sent != (ssize_t)(iov[0].iov_len + iov[1].iov_len))
			return fail("net", "sendmsg", sent);
	}
	close(s);
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons(PORT), .sin_addr = LOOPBACK };
	struct sockaddr_in peer;
	int peerlen = sizeof(peer), status = 0;
	long n = argc > 1 ? atol(argv[1]) : 3, messages = 0, bytes = 0, i;
	static char buf[256];
	int ls, c, err;
	pid_t pid;
	ssize_t got;

	ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0)
		return fail("net", "socket", ls);
	err = bind(ls, &addr, sizeof(addr));
	if (err)
		return fail("net", "bind", err);
	err = listen(ls, 4);
	if (err)
		return fail("net", "listen", err);
	pid = fork();
	if (pid < 0)
		return fail("net", "fork", pid);
	if (pid == 0) {
		close(ls);
		exit(child(n));
	}
	c = accept(ls, &peer, &peerlen);
	if (c < 0)
		return fail("net", "accept", c);
	for (;;) {
		struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

		got = recvmsg(c, &msg, 0);
		if (got <= 0)
			break;
		bytes += got;
		for (i = 0; i < got; i++)
			messages += buf[i] == '\n';
	}
	if (got < 0)
		return fail("net", "recvmsg", got);
	close(c);
	close(ls);
	if (waitpid(pid, &status, 0) != pid || status != 0)
		return fail("net", "child", status);
	printf("net: received %ld messages (%ld bytes) from 127.0.0.1:%d\n", messages, bytes,
	       htons(peer.sin_port));
	return messages == n ? 0 : 1;
}
