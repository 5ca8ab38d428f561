/**
 * The kernel's compiler flags for a module (image/kernel-flags.sh, as the kernel and its seed modules
 * are built: Linux x86-64's arch/x86/Makefile as far as they matter here, frame pointers, no endbr64),
 * without `-nostdinc -isystem <gcc's include>`, which {@link buildModule} adds for the compiler it runs.
 * A spec checks they are the flags of kernel-flags.sh.
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

/**
 * The warnings Linux's top Makefile makes errors (and -Wall), and what a module build defines:
 * `MODULE`, `KBUILD_MODNAME`, `CONFIG_X86`, `CONFIG_X86_64`, `CONFIG_KPROBES`, `CONFIG_KRETPROBES`.
 */
export function moduleCflags(modname: string): string[] {
  return [
    '-Wall',
    '-Werror=implicit-function-declaration',
    '-Werror=implicit-int',
    '-Werror=return-type',
    '-Werror=incompatible-pointer-types',
    '-Werror=strict-prototypes',
    '-DMODULE',
    `-DKBUILD_MODNAME="${modname}"`,
    '-DCONFIG_X86',
    '-DCONFIG_X86_64',
    '-DCONFIG_KPROBES',
    '-DCONFIG_KRETPROBES',
  ];
}
