#!/usr/bin/env bash
# Build the sample kernel modules (image/modules/*.ko): relocatable objects (ET_REL) compiled with
# the kernel flags of ../build.sh, as Kbuild builds a module's .o before modpost.
#
#   build.sh [OUTDIR]     default OUTDIR: this directory (the committed .ko files)
#
# Reproducible: fixed paths (-ffile-prefix-map), no .comment (-fno-ident), sorted inputs; the same
# toolchain (../TOOLCHAIN) gives byte-identical files.
#
#   hello.ko     init/cleanup printk, .data/.bss/.rodata, PLT32/PC32/32S/64 relocations
#   nodev.ko     init_module fails with -ENODEV
#   needsym.ko   refers to a symbol no kernel defines (Unknown symbol)
#   overflow.ko  a 32S relocation against an absolute symbol out of range (ld -r of two objects,
#                as Kbuild links a multi-object module)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
image="$(dirname "$here")"
out="$(mkdir -p "${1:-$here}" && cd "${1:-$here}" && pwd)"
CC="${CC:-gcc}"
LD="${LD:-ld}"
obj="$(mktemp -d)"
trap 'rm -rf "$obj"' EXIT
export LC_ALL=C SOURCE_DATE_EPOCH=0

# The kernel flags of ../build.sh, for an object that is linked at load time instead of by ld.
# shellcheck source=kernel-flags.sh
source "$image/kernel-flags.sh"
KCFLAGS=("${KERNEL_CFLAGS[@]}" -I"$image/include" -Wall -Werror -ffile-prefix-map="$image"=..)

cd "$here"
for name in hello nodev needsym; do
  "$CC" "${KCFLAGS[@]}" -c "$name.c" -o "$out/$name.ko"
done
"$CC" "${KCFLAGS[@]}" -c overflow.c -o "$obj/overflow.o"
"$CC" "${KCFLAGS[@]}" -c overflow_far.S -o "$obj/overflow_far.o"
"$LD" -r -o "$out/overflow.ko" "$obj/overflow.o" "$obj/overflow_far.o"
