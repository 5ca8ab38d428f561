/**
 * Where a CPU's state is for code compiled to WebAssembly, in the page arena's memory: R and H at
 * `regs` (CpuState.regsOffset), then the exchange area (CpuState.exchange) at `regs + 128`, and the
 * read and write TLBs (CpuCore.rTlbOffset/wTlbOffset): tag low halves, high halves, page offsets.
 */
export const EXCHANGE = 128;
/** The exchange area's ints: the lazy-flag record (CpuState's order, 10), RFLAGS, RIP, instructions retired. */
export const X_FLAGS = 10;
export const X_RIP_LO = 11;
export const X_RIP_HI = 12;
export const X_RETIRED = 13;
/** A TLB's arrays, from its offset: tag low halves at +0, high halves at +TLB_HI, page offsets at +TLB_OFF. */
export const TLB_HI = 1024;
export const TLB_OFF = 2048;

/** A region compiled to WebAssembly: `run(rem, block, regs, rtlb, wtlb)` returns as a RegionFunction does. */
export type WasmRun = (rem: number, block: number, regs: number, rtlb: number, wtlb: number) => number;

/** The parameters of `run` (WasmRun), by index. */
export const P_REM = 0;
export const P_PC = 1;
export const P_REGS = 2;
export const P_RTLB = 3;
export const P_WTLB = 4;
