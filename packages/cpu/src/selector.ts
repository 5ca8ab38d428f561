/**
 * Segment selectors as Linux lays out its GDT; `cpl = cs & 3`.
 * @see Linux arch/x86/include/asm/segment.h (__KERNEL_CS, __KERNEL_DS, __USER_DS, __USER_CS)
 */
export const Selector = { KERNEL_CS: 0x10, KERNEL_DS: 0x18, USER_DS: 0x2b, USER_CS: 0x33 } as const;
