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
