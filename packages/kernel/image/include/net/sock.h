/* struct sock (TCP over IPv4 only) and the TCP/IP functions (include/net/sock.h, tcp.h, ip.h). */
#ifndef _NET_SOCK_H
#define _NET_SOCK_H

#include <linux/net.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/wait.h>

enum {
	TCP_ESTABLISHED = 1,
	TCP_SYN_SENT,
	TCP_SYN_RECV,
	TCP_FIN_WAIT1,
	TCP_FIN_WAIT2,
	TCP_TIME_WAIT,
	TCP_CLOSE,
	TCP_CLOSE_WAIT,
	TCP_LAST_ACK,
	TCP_LISTEN,
	TCP_CLOSING,
};

#define RCV_SHUTDOWN 1
#define SEND_SHUTDOWN 2
#define TCP_MSS 1460

struct flowi4 {
	__be32 saddr;
	__be32 daddr;
	u8 flowi4_proto;
};

struct sock {
	/* addressing, host byte order */
	u32 sk_rcv_saddr;
	u32 sk_daddr;
	u16 sk_num;             /* local port */
	u16 sk_dport;           /* remote port */
	int sk_state;           /* TCP_* */
	int sk_err;
	u8 sk_shutdown;
	int sk_max_ack_backlog;
	int sk_ack_backlog;
	struct socket *sk_socket;
	struct sock *sk_bind_next;              /* tcp_hashinfo chain */
	bool sk_hashed;
	struct sk_buff_head sk_receive_queue;
	wait_queue_head_t sk_wq;
	struct sock *icsk_accept_head;          /* established children, oldest first */
	struct sock *icsk_accept_tail;
	struct sock *icsk_accept_next;
	u32 snd_nxt;
	u32 rcv_nxt;
};

struct sock *sk_alloc(int family, gfp_t priority);
void sk_free(struct sock *sk);
void inet_hash(struct sock *sk);
void inet_unhash(struct sock *sk);
struct sock *__inet_lookup(u32 saddr, u16 sport, u32 daddr, u16 dport);
struct sock *inet_lookup_listener(u16 port);

int tcp_v4_connect(struct sock *sk, struct sockaddr *uaddr, int addr_len);
int tcp_v4_rcv(struct sk_buff *skb);
int tcp_transmit_skb(struct sock *sk, struct sk_buff *skb, u8 tcp_flags);
int tcp_send_ctl(struct sock *sk, u8 tcp_flags);
void tcp_v4_send_reset(struct sk_buff *skb);
int tcp_sendmsg(struct sock *sk, struct msghdr *msg, size_t size);
int tcp_recvmsg(struct sock *sk, struct msghdr *msg, size_t len, int flags, int *addr_len);
void tcp_close(struct sock *sk, long timeout);
struct sock *inet_csk_accept(struct sock *sk, int flags, int *err, bool kern);
int inet_csk_listen_start(struct sock *sk);
int inet_autobind(struct sock *sk);
void inet_csk_reqsk_queue_add(struct sock *sk, struct sock *child);
int ip_queue_xmit(struct sock *sk, struct sk_buff *skb, struct flowi4 *fl);
int ip_local_deliver(struct sk_buff *skb);

#endif
