import { type AddressSpace, type Cpu, Reg } from '@int3/cpu';
import type { Kallsyms } from '../kallsyms/kallsyms.js';

const hex16 = (v: bigint) => v.toString(16).padStart(16, '0');

/** The die() header line for a vector, as `die()` names them. */
export function dieTitle(vector: number): string {
  switch (vector) {
    case 0:
      return 'divide error';
    case 3:
      return 'int3';
    case 6:
      return 'invalid opcode';
    case 13:
      return 'general protection fault';
    case 14:
      return 'Oops';
    default:
      return `trap ${vector}`;
  }
}

/**
 * The oops report printk prints when the kernel dies on a fault: header, CPU/PID/Comm, RIP as
 * `sym+off/size`, the registers, and a call trace walked through the frame-pointer chain (the image
 * is built with frame pointers).
 *
 * @see arch/x86/kernel/dumpstack.c __die(), show_regs(); arch/x86/mm/fault.c show_fault_oops()
 */
export function oopsReport(input: {
  cpu: Cpu;
  cpuIndex: number;
  vector: number;
  errorCode: number;
  cr2: bigint | undefined;
  pid: number;
  comm: string;
  ksyms: Kallsyms;
  stackLow: bigint;
  stackHigh: bigint;
  oopsCount: number;
  /** Kernel release for the `Not tainted` line (from the image's banner). */
  release: string;
}): string[] {
  const { cpu, vector, errorCode } = input;
  const lines: string[] = [];
  if (vector === 14) {
    const addr = input.cr2 ?? 0n;
    lines.push(
      addr < 4096n
        ? `BUG: kernel NULL pointer dereference, address: ${hex16(addr)}`
        : `BUG: unable to handle page fault for address: ${hex16(addr)}`,
    );
    const access = errorCode & 0x10 ? 'instruction fetch' : errorCode & 0x2 ? 'write access' : 'read access';
    lines.push(`#PF: supervisor ${access} in kernel mode`);
    lines.push(
      `#PF: error_code(0x${errorCode.toString(16).padStart(4, '0')}) - ${errorCode & 1 ? 'permissions violation' : 'not-present page'}`,
    );
  }
  lines.push(`${dieTitle(vector)}: ${errorCode.toString(16).padStart(4, '0')} [#${input.oopsCount}] SMP`);
  lines.push(`CPU: ${input.cpuIndex} PID: ${input.pid} Comm: ${input.comm} Not tainted ${input.release} #1`);
  lines.push(`RIP: ${cpu.cs.toString(16).padStart(4, '0')}:${input.ksyms.format(cpu.rip)}`);
  const r = (i: number) => hex16(cpu.getReg(i as 0));
  lines.push(
    `RSP: ${cpu.ss.toString(16).padStart(4, '0')}:${r(Reg.RSP)} EFLAGS: ${cpu.rflags.toString(16).padStart(8, '0')}`,
  );
  lines.push(`RAX: ${r(Reg.RAX)} RBX: ${r(Reg.RBX)} RCX: ${r(Reg.RCX)}`);
  lines.push(`RDX: ${r(Reg.RDX)} RSI: ${r(Reg.RSI)} RDI: ${r(Reg.RDI)}`);
  lines.push(`RBP: ${r(Reg.RBP)} R08: ${r(Reg.R8)} R09: ${r(Reg.R9)}`);
  lines.push(`R10: ${r(Reg.R10)} R11: ${r(Reg.R11)} R12: ${r(Reg.R12)}`);
  lines.push(`R13: ${r(Reg.R13)} R14: ${r(Reg.R14)} R15: ${r(Reg.R15)}`);
  lines.push('Call Trace:');
  lines.push(' <TASK>');
  // Faulting in a prologue (before `mov %rsp,%rbp`), the caller's return address is at the stack top.
  const offset = input.ksyms.lookup(cpu.rip)?.offset;
  const rsp = cpu.getReg(Reg.RSP);
  const top =
    offset === 0 ? stackWord(cpu.addressSpace, rsp) : offset === 1 ? stackWord(cpu.addressSpace, rsp + 8n) : undefined;
  const prologue = top === undefined ? [] : [top];
  for (const ret of [
    ...prologue,
    ...frameReturnAddresses(cpu.addressSpace, cpu.getReg(Reg.RBP), input.stackLow, input.stackHigh),
  ]) {
    lines.push(` ${input.ksyms.format(ret)}`);
  }
  lines.push(' </TASK>');
  return lines;
}

/**
 * The 8 bytes at `a`, or undefined where they are not mapped: a dying kernel's stack pointer may
 * point anywhere, and the report reads it as Linux does, without faulting (copy_from_kernel_nofault).
 */
function stackWord(space: AddressSpace, a: bigint): bigint | undefined {
  const at = BigInt.asUintN(64, a);
  return space.isMapped(at, 8) ? space.readU64(at) : undefined;
}

/** Return addresses found by walking `rbp` links inside [low, high), at most 16; none past an unmapped word. */
export function frameReturnAddresses(space: AddressSpace, rbp: bigint, low: bigint, high: bigint): bigint[] {
  const out: bigint[] = [];
  let fp = rbp;
  while (out.length < 16 && fp >= low && fp + 16n <= high && (fp & 7n) === 0n) {
    const ret = stackWord(space, fp + 8n);
    if (ret === undefined || ret === 0n) break;
    out.push(ret);
    const next = stackWord(space, fp);
    if (next === undefined || next <= fp) break;
    fp = next;
  }
  return out;
}
