/* struct sock allocation (net/core/sock.c). */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <net/sock.h>

struct sock *sk_alloc(int family, gfp_t priority)
{
	struct sock *sk = kzalloc(sizeof(*sk), priority);

	if (sk)
		sk->sk_state = TCP_CLOSE;
	return sk;
}

void sk_free(struct sock *sk)
{
	skb_queue_purge(&sk->sk_receive_queue);
	kfree(sk);
}
