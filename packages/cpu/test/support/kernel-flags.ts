/**
 * The flags the kernel builds with, as the project's issue fixes them: freestanding, no PIC, the
 * kernel code model, no red zone, no SSE/MMX, no unwind tables. Both the emulated images and the
 * host-side corpus objects use them (minus the code model and link layout on the host).
 */
export const KERNEL_CFLAGS = [
  '-ffreestanding',
  '-fno-pic',
  '-mcmodel=kernel',
  '-mno-red-zone',
  '-mno-sse',
  '-mno-mmx',
  '-mno-sse2',
  '-fno-asynchronous-unwind-tables',
] as const;

/** Link flags for a static image whose .text starts at the kernel's `_text`. */
export const KERNEL_LDFLAGS = ['-nostdlib', '-static', '-Wl,-Ttext=0xffffffff81000000', '-Wl,--build-id=none'] as const;

/** The optimisation levels every corpus function is compared at. */
export const OPT_LEVELS = ['-O0', '-O2', '-Os'] as const;

/** One of {@link OPT_LEVELS}. */
export type OptLevel = (typeof OPT_LEVELS)[number];

/** Host flags for corpus objects linked into a native harness: the kernel flags minus the code model. */
export const HOST_CORPUS_CFLAGS = KERNEL_CFLAGS.filter((f) => f !== '-mcmodel=kernel' && f !== '-fno-pic');
