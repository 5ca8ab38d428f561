import { AddressSpace } from './address-space.js';
import { Cpu } from './cpu.js';
import { PageFlags } from './page-flags.js';
import { Reg } from './reg.js';
import type { RunResult } from './run-result.js';

/** Where {@link testMachine} maps code, data and the stack. */
export const TEST_LAYOUT = { code: 0x400000n, data: 0x600000n, stackTop: 0x800000n } as const;

/**
 * A CPU on a fresh address space with code (followed by hlt), a data page and an 8 KiB stack, all
 * user-accessible and writable, at CPL 0. For tests and benchmarks.
 */
export function testMachine(code: Uint8Array | readonly number[]): { cpu: Cpu; as: AddressSpace; run(): RunResult } {
  const as = new AddressSpace();
  const rwx = PageFlags.Present | PageFlags.Writable | PageFlags.User;
  const bytes = Uint8Array.from([...code, 0xf4]);
  as.map(TEST_LAYOUT.code, Math.ceil(bytes.length / 4096) * 4096, rwx);
  as.write(TEST_LAYOUT.code, bytes);
  as.map(TEST_LAYOUT.data, 4096, rwx);
  as.map(TEST_LAYOUT.stackTop - 8192n, 8192, rwx);
  const cpu = new Cpu({ addressSpace: as });
  cpu.rip = TEST_LAYOUT.code;
  cpu.setReg(Reg.RSP, TEST_LAYOUT.stackTop);
  return { cpu, as, run: () => cpu.run(1_000_000) };
}
