#!/bin/sh
# Builds sample.elf, the project's sample kernel-style image: the C corpus (../corpus/*.c) compiled by
# gcc at -O2 with the kernel flags and linked at 0xffffffff81000000. Reproducible: fixed flags and
# file order, no build-id, relative source paths with -ffile-prefix-map, no debug info; it runs the
# same from any working directory. `int3 call` and `int3 demo` use the result.
#
#   usage: build.sh [output]        (default: sample.elf next to this script)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
package=$(dirname "$here")
output=${1:-$here/sample.elf}
case $output in /*) ;; *) output=$(pwd)/$output ;; esac

cd "$package"
# shellcheck disable=SC2046 # the corpus file names have no spaces; the sort fixes the link order
LC_ALL=C gcc -O2 \
  -ffreestanding -fno-pic -mcmodel=kernel -mno-red-zone -mno-sse -mno-mmx -mno-sse2 \
  -fno-asynchronous-unwind-tables -ffile-prefix-map="$package"=. \
  -nostdlib -static -Wl,-Ttext=0xffffffff81000000 -Wl,--build-id=none -Wl,-e,0xffffffff81000000 \
  -Icorpus -o "$output" $(LC_ALL=C ls corpus/*.c | sort) -lgcc
