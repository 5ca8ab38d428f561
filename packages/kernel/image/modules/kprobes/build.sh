#!/usr/bin/env bash
# Build the kprobes sample modules (image/modules/kprobes/*.ko): relocatable objects (ET_REL) compiled
# with the kernel flags of ../../build.sh, as ../build.sh builds the other sample modules. They link
# against kprobes' host-call gates (register_kprobe, ...) and its own text (jprobe_return), which
# exist once @int3/kprobes is set up on the machine; include/linux/kprobes.h is their API.
#
#   build.sh [OUTDIR]     default OUTDIR: this directory (the committed .ko files)
#
# Reproducible: fixed paths (-ffile-prefix-map), no .comment (-fno-ident), sorted inputs; the same
# toolchain (../../TOOLCHAIN) gives byte-identical files. The three examples are written as Linux modules are
# (<linux/module.h>, module_init); `int3 module build X.c` in this directory gives the same bytes (a test checks).
#
#   kprobe_example.ko     kprobe on __blockdev_direct_IO: pre/post/fault handlers print (dd)
#   jprobe_example.ko     jprobe jip_queue_xmit on ip_queue_xmit: mirrors its arguments (net)
#   kretprobe_example.ko  kretprobe on sys_mkdir: prints "sys_mkdir exited" and the result (mkdir)
#   kretprobe_enomem.ko   test-only: a kretprobe on sys_mkdir that makes it return -ENOMEM, with an
#                         entry handler and per-instance data
#   jmp_reg.ko            test-only, assembly: jmp *%rax, call *%rax, call *mem and a jump table
#                         (jmp *table(,%rdi,8)), the indirect branches gcc does not emit here
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
image="$(dirname "$(dirname "$here")")"
out="$(mkdir -p "${1:-$here}" && cd "${1:-$here}" && pwd)"
CC="${CC:-gcc}"
export LC_ALL=C SOURCE_DATE_EPOCH=0

# The kernel flags of ../../build.sh, for an object that is linked at load time instead of by ld.
# shellcheck source=kernel-flags.sh
source "$image/kernel-flags.sh"
KCFLAGS=("${KERNEL_CFLAGS[@]}" -I"$image/include" -Wall -Werror -ffile-prefix-map="$image"=../..)

cd "$here"
for src in $(printf '%s\n' *.c | sort); do
  "$CC" "${KCFLAGS[@]}" -c "$src" -o "$out/${src%.c}.ko"
done
"$CC" "${KCFLAGS[@]}" -c jmp_reg.S -o "$out/jmp_reg.ko"
