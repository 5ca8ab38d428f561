#!/usr/bin/env bash
# Native smoke test: compile the guest kernel's C as an ordinary x86-64 Linux process, with the
# host gates implemented in C (smoke.c), and drive the system calls directly. It checks that
# data really flows (VFS, ramfs, RAM disk, loopback TCP, exception-table fixups) without the
# emulator. Exit status: the number of failed checks (0 = all passed).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CC="${CC:-gcc}"
obj="$(mktemp -d)"
trap 'rm -rf "$obj"' EXIT
cd "$here"

mapfile -t srcs < <(find arch init kernel mm lib fs block drivers net -name '*.c' | sort)
srcs+=(arch/x86/lib/copy_user_64.S test/smoke.c)
$CC -std=gnu11 -O2 -ffreestanding -fno-pic -fno-pie -no-pie -static -nostdlib -mno-sse -mno-mmx -mno-sse2 \
  -fno-asynchronous-unwind-tables -fno-stack-protector -fno-common -fno-strict-aliasing -fcf-protection=none \
  -nostdinc -isystem "$($CC -print-file-name=include)" -Iinclude -Wall -Werror \
  -Wl,--build-id=none -Wl,-z,noexecstack -o "$obj/smoke" "${srcs[@]}" -lgcc
"$obj/smoke"
