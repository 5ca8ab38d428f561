/*
 * Host side of the instruction-level differential test: runs a short instruction sequence on the real
 * CPU with all 16 general registers and RFLAGS taken from the input, and prints the state after it.
 *
 *   in:  <code hex> <rax> <rcx> <rdx> <rbx> <rsp> <rbp> <rsi> <rdi> <r8> ... <r15> <rflags> <window hex|->
 *   out: ok <rax> ... <r15> <rflags> <window hex|->        or        fault <vector>
 *
 * Memory forms use a scratch page mapped at the fixed address SCRATCH_PAGE (the emulator maps the same
 * address, so pointers in registers compare equal): the window, WINDOW_SIZE bytes at
 * SCRATCH_PAGE + WINDOW_OFFSET, is loaded before each case (zero when '-') and printed after it.
 *
 * The code is copied into an RWX page followed by `jmp *0(%rip)` to int3_exit, which stores every
 * register with RIP-relative moves before touching the stack (RSP may hold anything). A fault
 * (SIGFPE for #DE, SIGILL for #UD, SIGSEGV for #PF or #GP by si_code, SIGBUS for #GP) unwinds through siglongjmp from a
 * handler running on an alternate stack, and prints the vector it stands for.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define SCRATCH_PAGE 0x10000000ul
#define WINDOW_OFFSET 0x700
#define WINDOW_SIZE 0x200

uint64_t int3_in_regs[16], int3_out_regs[16], int3_in_flags, int3_out_flags, int3_host_rsp, int3_code_ptr;
void int3_enter(void);
void int3_exit(void);

#define LOAD(i, r) "movq int3_in_regs+" #i "*8(%rip), %" #r "\n\t"
#define SAVE(i, r) "movq %" #r ", int3_out_regs+" #i "*8(%rip)\n\t"

__asm__(".text\n\t"
	".globl int3_enter\n"
	"int3_enter:\n\t"
	"pushq %rbx\n\tpushq %rbp\n\tpushq %r12\n\tpushq %r13\n\tpushq %r14\n\tpushq %r15\n\t"
	"movq %rsp, int3_host_rsp(%rip)\n\t"
	"pushq int3_in_flags(%rip)\n\t"
	"popfq\n\t"
	LOAD(0, rax) LOAD(1, rcx) LOAD(2, rdx) LOAD(3, rbx) LOAD(5, rbp) LOAD(6, rsi) LOAD(7, rdi)
	LOAD(8, r8) LOAD(9, r9) LOAD(10, r10) LOAD(11, r11) LOAD(12, r12) LOAD(13, r13) LOAD(14, r14)
	LOAD(15, r15) LOAD(4, rsp)
	"jmp *int3_code_ptr(%rip)\n"
	".globl int3_exit\n"
	"int3_exit:\n\t"
	SAVE(0, rax) SAVE(1, rcx) SAVE(2, rdx) SAVE(3, rbx) SAVE(4, rsp) SAVE(5, rbp) SAVE(6, rsi) SAVE(7, rdi)
	SAVE(8, r8) SAVE(9, r9) SAVE(10, r10) SAVE(11, r11) SAVE(12, r12) SAVE(13, r13) SAVE(14, r14)
	SAVE(15, r15)
	"movq int3_host_rsp(%rip), %rsp\n\t"
	"pushfq\n\t"
	"popq int3_out_flags(%rip)\n\t"
	"cld\n\t"
	"popq %r15\n\tpopq %r14\n\tpopq %r13\n\tpopq %r12\n\tpopq %rbp\n\tpopq %rbx\n\t"
	"ret\n");

static sigjmp_buf fault_jump;

/* SIGSEGV splits into #PF (a page fault: si_code MAPERR/ACCERR) and #GP (SI_KERNEL). */
#define SIG_PAGE_FAULT 1000

static void on_fault(int sig, siginfo_t *info, void *context)
{
	(void)context;
	if (sig == SIGSEGV && (info->si_code == SEGV_MAPERR || info->si_code == SEGV_ACCERR))
		sig = SIG_PAGE_FAULT;
	siglongjmp(fault_jump, sig);
}

static int vector_of(int sig)
{
	switch (sig) {
	case SIGFPE: return 0;
	case SIGTRAP: return 3;
	case SIGILL: return 6;
	case SIGSEGV: return 13;
	case SIGBUS: return 13;
	case SIG_PAGE_FAULT: return 14;
	default: return 255;
	}
}

static int hexval(int c)
{
	return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

int main(void)
{
	static uint8_t alt_stack[65536];
	stack_t ss = { .ss_sp = alt_stack, .ss_size = sizeof(alt_stack) };
	struct sigaction sa;
	int signals[] = { SIGFPE, SIGTRAP, SIGILL, SIGSEGV, SIGBUS };
	uint8_t *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *line = NULL;
	size_t cap = 0;

	uint8_t *scratch = mmap((void *)SCRATCH_PAGE, 4096, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (page == MAP_FAILED || scratch != (uint8_t *)SCRATCH_PAGE || sigaltstack(&ss, NULL) != 0) {
		perror("insn-runner");
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_ONSTACK | SA_NODEFER | SA_SIGINFO;
	for (unsigned i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		sigaction(signals[i], &sa, NULL);
	int3_code_ptr = (uint64_t)(uintptr_t)page;

	while (getline(&line, &cap, stdin) > 0) {
		char *p = line;
		size_t n = 0;
		volatile int sig;
		uint64_t exit_address = (uint64_t)(uintptr_t)int3_exit;

		while (p[0] && p[0] != ' ' && n < 4000) {
			page[n++] = (uint8_t)(hexval(p[0]) << 4 | hexval(p[1]));
			p += 2;
		}
		/* jmp *0(%rip); .quad int3_exit */
		memcpy(page + n, "\xff\x25\x00\x00\x00\x00", 6);
		memcpy(page + n + 6, &exit_address, 8);
		for (int i = 0; i < 16; i++)
			int3_in_regs[i] = strtoull(p, &p, 16);
		int3_in_flags = strtoull(p, &p, 16);
		memset(scratch, 0, 4096);
		while (*p == ' ')
			p++;
		if (*p != '-' && *p != '\n' && *p != 0) {
			for (size_t i = 0; i < WINDOW_SIZE && p[0] && p[0] != '\n'; i++, p += 2)
				scratch[WINDOW_OFFSET + i] = (uint8_t)(hexval(p[0]) << 4 | hexval(p[1]));
		}
		sig = sigsetjmp(fault_jump, 1);
		if (sig == 0) {
			int3_enter();
			printf("ok");
			for (int i = 0; i < 16; i++)
				printf(" %llx", (unsigned long long)int3_out_regs[i]);
			printf(" %llx ", (unsigned long long)int3_out_flags);
			for (size_t i = 0; i < WINDOW_SIZE; i++)
				printf("%02x", scratch[WINDOW_OFFSET + i]);
			putchar('\n');
		} else {
			__asm__ volatile("cld");
			printf("fault %d\n", vector_of(sig));
		}
	}
	free(line);
	return 0;
}
