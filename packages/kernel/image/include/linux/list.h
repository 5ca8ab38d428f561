/* Doubly linked circular lists, as include/linux/list.h. */
#ifndef _LINUX_LIST_H
#define _LINUX_LIST_H

#include <linux/compiler.h>

struct list_head {
	struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name) { &(name), &(name) }

static inline void INIT_LIST_HEAD(struct list_head *list)
{
	list->next = list;
	list->prev = list;
}

static inline void list_add_tail(struct list_head *new, struct list_head *head)
{
	struct list_head *prev = head->prev;

	new->next = head;
	new->prev = prev;
	prev->next = new;
	head->prev = new;
}

static inline void list_del(struct list_head *entry)
{
	entry->prev->next = entry->next;
	entry->next->prev = entry->prev;
	entry->next = entry;
	entry->prev = entry;
}

static inline int list_empty(const struct list_head *head)
{
	return head->next == head;
}

#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_first_entry(ptr, type, member) list_entry((ptr)->next, type, member)
#define list_for_each_entry(pos, head, member)                                   \
	for (pos = list_entry((head)->next, __typeof__(*pos), member);           \
	     &pos->member != (head);                                             \
	     pos = list_entry(pos->member.next, __typeof__(*pos), member))
#define list_for_each_entry_safe(pos, n, head, member)                           \
	for (pos = list_entry((head)->next, __typeof__(*pos), member),           \
	     n = list_entry(pos->member.next, __typeof__(*pos), member);         \
	     &pos->member != (head);                                             \
	     pos = n, n = list_entry(n->member.next, __typeof__(*n), member))

#endif
