/**
 * The kernel's compiler flags for a module (image/kernel-flags.sh, as the kernel and its seed modules
 * are built: Linux x86-64's arch/x86/Makefile as far as they matter here, frame pointers, no endbr64),
 * without `-nostdinc -isystem <gcc's include>`, which a build adds for the compiler it runs (`int3 module
 * build` does; so do the tests that build modules). A spec checks they are the flags of kernel-flags.sh.
 */
export const KERNEL_CFLAGS: readonly string[] = [
  '-std=gnu11',
  '-O2',
  '-ffreestanding',
  '-fno-pic',
  '-fno-pie',
  '-mcmodel=kernel',
  '-mno-red-zone',
  '-mno-sse',
  '-mno-mmx',
  '-mno-sse2',
  '-mno-3dnow',
  '-mno-avx',
  '-mpreferred-stack-boundary=3',
  '-fno-asynchronous-unwind-tables',
  '-fno-unwind-tables',
  '-fno-stack-protector',
  '-fno-common',
  '-fno-strict-aliasing',
  '-fno-delete-null-pointer-checks',
  '-fno-omit-frame-pointer',
  '-fno-optimize-sibling-calls',
  '-fno-shrink-wrap',
  '-fcf-protection=none',
  '-fno-ident',
];
