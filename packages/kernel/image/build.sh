#!/usr/bin/env bash
# Build the int3 guest kernel (vmlinux), its debug twin (vmlinux.debug) and the user workloads
# (user/bin/*) with gcc.
#
#   build.sh [OUTDIR]     default OUTDIR: this directory (the committed files)
#
# Reproducible: sources in sorted order, paths relative to this directory (-ffile-prefix-map),
# no build-id, no .comment, objects in a throwaway directory. The toolchain used is written to
# OUTDIR/TOOLCHAIN; the same toolchain gives byte-identical output.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$(mkdir -p "${1:-$here}" && cd "${1:-$here}" && pwd)"
CC="${CC:-gcc}"
obj="$(mktemp -d)"
trap 'rm -rf "$obj"' EXIT
export LC_ALL=C SOURCE_DATE_EPOCH=0

# shellcheck source=kernel-flags.sh
source "$here/kernel-flags.sh"
KCFLAGS=("${KERNEL_CFLAGS[@]}" -Iinclude -Wall -Werror -ffile-prefix-map="$here"=.)
KLDFLAGS=(-nostdlib -static -no-pie -Wl,-T,kernel.lds -Wl,--build-id=none -Wl,-z,max-page-size=4096
  -Wl,-z,noexecstack -Wl,--no-warn-rwx-segments)

UCFLAGS=(
  -std=gnu11 -O2 -ffreestanding -fno-pic -no-pie -mno-sse -mno-mmx -mno-sse2 -mno-avx
  -fno-asynchronous-unwind-tables -fno-unwind-tables -fno-stack-protector -fcf-protection=none
  -fno-ident -nostdinc -Iuser/lib -Wall -Werror -ffile-prefix-map="$here"=.
)
ULDFLAGS=(-nostdlib -static -no-pie -Wl,--build-id=none -Wl,-z,max-page-size=4096 -Wl,-z,noexecstack
  -Wl,-Ttext-segment=0x400000)

cd "$here"

# compile FLAGS_ARRAY_NAME SRC...: each SRC becomes $OBJ/<SRC with / as _>.o, two at a time.
export OBJ="$obj"
compile() {
  local -n flags=$1
  shift
  printf '%s\0' "$@" | xargs -0 -P 2 -I{} bash -c 'src="$1"; shift; exec "$@" -c "$src" -o "$OBJ/${src//\//_}.o"' \
    _ {} "$CC" "${flags[@]}"
}

mapfile -t ksrc < <(find arch init kernel mm lib fs block drivers net -name '*.c' -o -name '*.S' | sort)
compile KCFLAGS "${ksrc[@]}"
kobj=()
for src in "${ksrc[@]}"; do kobj+=("$obj/${src//\//_}.o"); done
$CC "${KCFLAGS[@]}" "${KLDFLAGS[@]}" -o "$out/vmlinux" "${kobj[@]}" -lgcc

# vmlinux.debug: the same kernel compiled with -g (gcc's -g changes no generated code, so every
# section that is loaded is vmlinux's, byte for byte) plus its DWARF, for gdb's source-level
# debugging (`gdb vmlinux.debug`, `list do_sys_open`, `info locals`). vmlinux itself stays as it was.
mkdir -p "$obj/g"
KCFLAGS_G=("${KCFLAGS[@]}" -g)
OBJ="$obj/g" compile KCFLAGS_G "${ksrc[@]}"
kobjg=()
for src in "${ksrc[@]}"; do kobjg+=("$obj/g/${src//\//_}.o"); done
$CC "${KCFLAGS_G[@]}" "${KLDFLAGS[@]}" -o "$out/vmlinux.debug" "${kobjg[@]}" -lgcc

mapfile -t ulib < <(find user/lib -name '*.c' -o -name '*.S' | sort)
mapfile -t uprog < <(find user -maxdepth 1 -name '*.c' | sort)
compile UCFLAGS "${ulib[@]}" "${uprog[@]}"
ulibobj=()
for src in "${ulib[@]}"; do ulibobj+=("$obj/${src//\//_}.o"); done
mkdir -p "$out/user/bin"
for src in "${uprog[@]}"; do
  name="$(basename "$src" .c)"
  $CC "${UCFLAGS[@]}" "${ULDFLAGS[@]}" -o "$out/user/bin/$name" "${ulibobj[@]}" "$obj/${src//\//_}.o" -lgcc
done

{ $CC --version | head -n 1; ld --version | head -n 1; } > "$out/TOOLCHAIN"
