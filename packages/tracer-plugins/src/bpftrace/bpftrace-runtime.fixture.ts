import type { PtRegName } from '@int3/kernel';
import { BpftraceError, formatBpftraceError } from './bpftrace-error.js';
import type { BpftraceFormat } from './bpftrace-program.js';
import { BpftraceProgram } from './bpftrace-program.js';
import type { BpftraceRuntime, CurrentTask } from './bpftrace-runtime.js';

/** A runtime with fixed registers, one task (`bpftrace`, pid 42), two symbols and 64 bytes of memory. */
export function fakeRuntime(regs: Partial<Record<PtRegName, bigint>> = {}): BpftraceRuntime {
  const task: CurrentTask = { pid: 42, tid: 42, comm: 'bpftrace', task: 0xffff888000001000n };
  const memory = new Uint8Array(64);
  memory.set([...'hello\0'].map((c) => c.charCodeAt(0)));
  memory.set([0x2a, 0, 0, 0, 0, 0, 0, 0x80], 16);
  const base = 0xffffffff81000000n;
  const syms = [
    { name: 'vfs_read', address: base },
    { name: 'ksys_read', address: base + 0x100n },
  ];
  return {
    ncpus: 2,
    reg: (_cpu, name) => regs[name] ?? 0n,
    readMemory: (_cpu, address, length, out) => {
      const off = Number(address - 0x1000n);
      if (address < 0x1000n || off + length > memory.length) return false;
      out.set(memory.subarray(off, off + length));
      return true;
    },
    readString: (_cpu, address, max) => {
      const off = Number(address - 0x1000n);
      if (address < 0x1000n || off >= memory.length) return undefined;
      let s = '';
      for (let i = off; i < memory.length && s.length < max && memory[i] !== 0; i++)
        s += String.fromCharCode(memory[i]);
      return s;
    },
    currentTask: () => task,
    functionAt: (address) => [...syms].reverse().find((s) => s.address <= address && address < s.address + 0x100n),
    addressOf: (name) => syms.find((s) => s.name === name)?.address,
    now: () => 1_000_000,
  };
}

/** Runs a begin/end program to its exit; what it printed, or its error as bpftrace prints it. */
export function runBegin(source: string, format: BpftraceFormat = 'text'): string {
  let out = '';
  try {
    const p = new BpftraceProgram(source, fakeRuntime(), format, { stdout: (s) => (out += s), stderr: () => {} });
    p.begin();
    p.finish();
  } catch (error) {
    if (error instanceof BpftraceError) return formatBpftraceError(error, source);
    throw error;
  }
  return out;
}
