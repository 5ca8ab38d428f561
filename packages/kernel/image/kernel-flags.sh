# The kernel compiler flags, sourced by build.sh, modules/build.sh and modules/kprobes/build.sh so
# the kernel and its modules are built alike: Linux x86-64's (arch/x86/Makefile) as far as they
# matter here, plus frame pointers (CONFIG_FRAME_POINTER) so every function has a real prologue, and
# no CET endbr64. Callers add their include path and -ffile-prefix-map. Needs $CC.
KERNEL_CFLAGS=(
  -std=gnu11 -O2 -ffreestanding -fno-pic -fno-pie -mcmodel=kernel -mno-red-zone
  -mno-sse -mno-mmx -mno-sse2 -mno-3dnow -mno-avx -mpreferred-stack-boundary=3
  -fno-asynchronous-unwind-tables -fno-unwind-tables -fno-stack-protector -fno-common
  -fno-strict-aliasing -fno-delete-null-pointer-checks -fno-omit-frame-pointer
  -fno-optimize-sibling-calls -fno-shrink-wrap -fcf-protection=none -fno-ident
  -nostdinc -isystem "$($CC -print-file-name=include)"
)
