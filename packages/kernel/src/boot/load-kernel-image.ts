import { type AddressSpace, loadElf, PageFlags } from '@int3/cpu';
import type { Kallsyms } from '../kallsyms/kallsyms.js';
import type { KernelImage } from './kernel-image.js';

/**
 * Loads the kernel image into `space`: its segments, its host-call gates (the `__hostcall` section,
 * mapped as gate pages), its symbols into kallsyms, and its `__ex_table` entries into `exTable`.
 *
 * @see arch/x86/boot (the loader's role), kernel/extable.c sort_main_extable()
 */
export function loadKernelImage(
  img: KernelImage,
  space: AddressSpace,
  kallsyms: Pick<Kallsyms, 'addRegion'>,
  exTable: Map<bigint, bigint>,
): void {
  loadElf(img.elf, space);
  const start = img.symbols.__hostcall_start;
  const size = Number(img.symbols.__hostcall_end - start);
  if (size > 0) space.protect(start, size, PageFlags.Present | PageFlags.Gate);
  kallsyms.addRegion(undefined, img.ksyms);
  for (let a = img.symbols.__start___ex_table; a < img.symbols.__stop___ex_table; a += 16n) {
    exTable.set(space.readU64(a), space.readU64(a + 8n));
  }
}
