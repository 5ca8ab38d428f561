/* Socket buffers (net/core/skbuff.c): one kmalloc holds the sk_buff and its data. */
#include <linux/kernel.h>
#include <linux/skbuff.h>
#include <linux/slab.h>

struct sk_buff *alloc_skb(unsigned int size, gfp_t priority)
{
	struct sk_buff *skb = kzalloc(sizeof(*skb) + size, priority);

	if (!skb)
		return NULL;
	skb->head = (unsigned char *)(skb + 1);
	skb->data = skb->head;
	skb->tail = skb->head;
	skb->end = skb->head + size;
	return skb;
}

void kfree_skb(struct sk_buff *skb)
{
	kfree(skb);
}

/* Leave `len` bytes of headroom for headers pushed later. */
void skb_reserve(struct sk_buff *skb, int len)
{
	skb->data += len;
	skb->tail += len;
}

/* Extend the data area at the tail; returns where the new bytes go. */
void *skb_put(struct sk_buff *skb, unsigned int len)
{
	void *tmp = skb->tail;

	if (skb->tail + len > skb->end)
		panic("skb_put: over by %u", (unsigned int)(skb->tail + len - skb->end));
	skb->tail += len;
	skb->len += len;
	return tmp;
}

/* Prepend a header at the head of the data. */
void *skb_push(struct sk_buff *skb, unsigned int len)
{
	if (skb->data - len < skb->head)
		panic("skb_push: under by %u", (unsigned int)(skb->head - (skb->data - len)));
	skb->data -= len;
	skb->len += len;
	return skb->data;
}

/* Drop `len` bytes from the head (a parsed header, or consumed payload). */
void *skb_pull(struct sk_buff *skb, unsigned int len)
{
	if (len > skb->len)
		return NULL;
	skb->len -= len;
	skb->data += len;
	return skb->data;
}

void skb_queue_tail(struct sk_buff_head *list, struct sk_buff *newsk)
{
	newsk->next = NULL;
	if (list->tail)
		list->tail->next = newsk;
	else
		list->next = newsk;
	list->tail = newsk;
	list->qlen++;
}

struct sk_buff *skb_dequeue(struct sk_buff_head *list)
{
	struct sk_buff *skb = list->next;

	if (!skb)
		return NULL;
	list->next = skb->next;
	if (!list->next)
		list->tail = NULL;
	list->qlen--;
	skb->next = NULL;
	return skb;
}

void skb_queue_purge(struct sk_buff_head *list)
{
	struct sk_buff *skb;

	while ((skb = skb_dequeue(list)))
		kfree_skb(skb);
}
