/*
 * struct mm_struct: a user task's address space (include/linux/mm_types.h). The host keeps the page
 * tables (ABI.md); the guest's half records what a task's `current->mm` says of it. Kernel threads
 * (the boot task) have none: their `mm` is NULL, as in Linux.
 */
#ifndef _LINUX_MM_TYPES_H
#define _LINUX_MM_TYPES_H

#include <linux/types.h>

struct mm_struct {
	unsigned long task_size; /* size of the user half: TASK_SIZE_MAX */
	int mm_users;            /* tasks using it (no CLONE_VM here: always 1) */
};

struct mm_struct *mm_alloc(void);
void mmput(struct mm_struct *mm);

#endif
