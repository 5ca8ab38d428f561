import type { BpftraceRuntime } from './bpftrace-runtime.js';

/** bpftrace's default kernel stack depth (`kstack` is `kstack(127)`). */
const MAX_FRAMES = 127;
const KERNEL_HALF = 0xffff800000000000n;
const word = new Uint8Array(8);
const view = new DataView(word.buffer);

/**
 * The kernel stack of the task on `cpu`, unwound by frame pointers from the probe's registers, in
 * bpftrace's format: a newline, then one `        sym+off` line per frame (offset in decimal, the hex
 * address where no symbol covers it). At a function's first instruction its frame is not built yet, so the return
 * address is read at `sp` before following `bp`. A kprobe's `ip` is one past its int3, as in Linux
 * (`vfs_read+1`).
 *
 * @see arch/x86/kernel/unwind_frame.c; bpftrace src/bpftrace.cpp BPFtrace::get_stack()
 */
export function kstackOf(rt: BpftraceRuntime, cpu: number): string {
  const ip = rt.reg(cpu, 'ip');
  let out = `\n${frame(rt, ip)}`;
  let frames = 1;
  let bp = rt.reg(cpu, 'bp');
  const fn = rt.functionAt(ip);
  // At the first instruction (ip is one past it when an int3 trapped there) the frame is not built.
  if (fn !== undefined && ip - fn.address <= 1n) {
    const ret = read(rt, cpu, rt.reg(cpu, 'sp'));
    if (ret !== undefined && ret >= KERNEL_HALF) {
      out += frame(rt, ret);
      frames++;
    }
  }
  while (frames < MAX_FRAMES && bp >= KERNEL_HALF) {
    const ret = read(rt, cpu, bp + 8n);
    const next = read(rt, cpu, bp);
    if (ret === undefined || next === undefined || ret < KERNEL_HALF) break;
    out += frame(rt, ret);
    frames++;
    if (next <= bp) break;
    bp = next;
  }
  return out;
}

function frame(rt: BpftraceRuntime, address: bigint): string {
  // bpftrace's kernel symbolizer writes the offset in decimal (`ksys_read+103`).
  const fn = rt.functionAt(address);
  return `        ${fn === undefined ? `0x${address.toString(16)}` : `${fn.name}+${address - fn.address}`}\n`;
}

function read(rt: BpftraceRuntime, cpu: number, address: bigint): bigint | undefined {
  if (!rt.readMemory(cpu, address, 8, word)) return undefined;
  return view.getBigUint64(0, true);
}
