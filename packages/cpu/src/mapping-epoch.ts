/**
 * Counts every unmap/protect/markInstrumentation in any address space. A CPU whose TLB was filled
 * under an older epoch flushes it before running, the way `invlpg`/CR3 writes flush a real TLB.
 * @see Intel SDM Vol. 3A §4.10.4 (invalidation of TLBs)
 */
export const mappingEpoch = { value: 0 };
