import { PAGE_SIZE, PageFlags } from '@int3/cpu';
import type { SlotPageProvider } from './insn-slots.js';
import type { KprobesHost } from './kprobes-host.js';

/**
 * Pages for a slot cache (`module_alloc`: within ±2 GiB of the kernel), each named `name` in kallsyms
 * so traps and disassembly there read `name+0x…`. A Gate page is filled with int3: its bytes are never
 * executed (the CPU stops at a gate before decoding them).
 * @see kernel/kprobes.c alloc_insn_page(), free_insn_page()
 */
export function kprobePages(
  m: Pick<KprobesHost, 'memory' | 'space' | 'kallsyms'>,
  name: string,
  flags: number = PageFlags.Present,
): SlotPageProvider {
  const region = (page: bigint) => `${name}:${page.toString(16)}`;
  return {
    allocPage: () => {
      const page = m.memory.moduleAlloc(PAGE_SIZE, flags);
      if (flags & PageFlags.Gate) m.space.write(page, new Uint8Array(PAGE_SIZE).fill(0xcc));
      m.kallsyms.addRegion(
        undefined,
        [{ name, address: page, size: PAGE_SIZE, kind: 'text', global: false }],
        region(page),
      );
      return page;
    },
    freePage: (page) => {
      m.kallsyms.removeRegion(region(page));
      m.memory.free(page);
    },
  };
}
