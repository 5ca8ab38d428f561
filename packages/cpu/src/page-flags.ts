/** Size of one page of guest memory, in bytes. @see Intel SDM Vol. 3A §4.5 (4-level paging, 4-KByte pages) */
export const PAGE_SIZE = 4096;

/**
 * Permission bits of one guest page. `Gate` is not architectural: fetching code from a Gate page makes
 * `Cpu.run()` return `{ reason: 'gate' }` so the host can emulate a service (single bytes of an
 * ordinary page can be gates too: `AddressSpace.markGate`).
 * @see Intel SDM Vol. 3A §4.5 Table 4-19 (P, R/W, U/S, XD bits of a page-table entry)
 */
export const PageFlags = { Present: 1, Writable: 2, User: 4, NoExecute: 8, Gate: 16 } as const;
