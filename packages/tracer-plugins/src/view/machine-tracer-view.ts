import type { AddressSpace, RegIndex } from '@int3/cpu';
import { type Machine, ModuleState, type PtRegName, PtRegs } from '@int3/kernel';
import type { Kprobe, Kprobes, Kretprobe } from '@int3/kprobes';
import { globMatch } from '../filter/glob-match.js';
import { surrogateEscapeDecode } from '../trace-output/surrogate-escape.js';
import type { KprobesDebugfs, MachineView } from './machine-view.js';
import type { TracerKprobes } from './tracer-kprobes.js';
import type { TracerMemory } from './tracer-memory.js';
import type { TracerRegisters } from './tracer-registers.js';
import type { TracerSymbols } from './tracer-symbols.js';
import type { TracerTasks } from './tracer-tasks.js';

const PAGE_MASK = 0xfff;
/** The longest single read the view copies (a larger one is a tracer's mistake, not a guest's). */
const MAX_READ = 1 << 20;

/**
 * Copies `length` bytes at `address` of `space` into `dst`, page by page, without faulting: false
 * (with `dst` partly written) as soon as a page is unmapped.
 */
function copyNofault(space: AddressSpace, address: bigint, dst: Uint8Array): boolean {
  let a = BigInt.asUintN(64, address);
  let done = 0;
  while (done < dst.length) {
    const page = space.lookup(Number(a & 0xffffffffn), Number(a >> 32n) | 0);
    if (page === undefined) return false;
    const off = Number(a & 0xfffn);
    const n = Math.min(PAGE_MASK + 1 - off, dst.length - done);
    dst.set(page.data.subarray(off, off + n), done);
    done += n;
    a = BigInt.asUintN(64, a + BigInt(n));
  }
  return true;
}

/** The view's registers: every read goes through `PtRegs` and the CPU's register file here only. */
function registers(m: Machine): TracerRegisters {
  // A profile sample reads the CPU's live registers: a pt_regs view of each, made once.
  const irq = m.cpus.map((c) => new PtRegs(c));
  return Object.freeze({
    smpProcessorId: (regs: PtRegs) => regs.cpu.id,
    get: (regs: PtRegs, name: PtRegName) => regs.get(name),
    raw(regs: PtRegs, reg: RegIndex, out: Uint32Array) {
      out[0] = regs.cpu.regLo(reg);
      out[1] = regs.cpu.regHi(reg);
    },
    argument: (regs: PtRegs, n: number) => regs.argument(n, m.cpus[regs.cpu.id].addressSpace),
    irqRegs: (cpu: number) => irq[cpu],
  });
}

function memory(m: Machine): TracerMemory {
  const word = new Uint8Array(8);
  const view = new DataView(word.buffer);
  const fixed = (cpu: number, address: bigint, n: number): DataView | undefined =>
    copyNofault(m.cpus[cpu].addressSpace, address, word.subarray(0, n)) ? view : undefined;
  return Object.freeze({
    read(cpu: number, address: bigint, length: number) {
      if (!Number.isInteger(length) || length < 0 || length > MAX_READ) {
        throw new RangeError(`memory.read: length must be an integer from 0 to ${MAX_READ}, not ${length}`);
      }
      const out = new Uint8Array(length);
      return copyNofault(m.cpus[cpu].addressSpace, address, out) ? out : undefined;
    },
    readU8: (cpu: number, address: bigint) => fixed(cpu, address, 1)?.getUint8(0),
    readU16: (cpu: number, address: bigint) => fixed(cpu, address, 2)?.getUint16(0, true),
    readU32: (cpu: number, address: bigint) => fixed(cpu, address, 4)?.getUint32(0, true),
    readU64: (cpu: number, address: bigint) => fixed(cpu, address, 8)?.getBigUint64(0, true),
    readString(cpu: number, address: bigint, max: number) {
      const space = m.cpus[cpu].addressSpace;
      const limit = Math.max(0, Math.min(Math.trunc(max), MAX_READ));
      const bytes = new Uint8Array(limit);
      let a = BigInt.asUintN(64, address);
      let len = 0;
      while (len < limit) {
        const page = space.lookup(Number(a & 0xffffffffn), Number(a >> 32n) | 0);
        if (page === undefined) return undefined;
        const off = Number(a & 0xfffn);
        const n = Math.min(PAGE_MASK + 1 - off, limit - len);
        const data = page.data;
        let i = 0;
        while (i < n && data[off + i] !== 0) bytes[len + i] = data[off + i++];
        len += i;
        if (i < n) break;
        a = BigInt.asUintN(64, a + BigInt(n));
      }
      return surrogateEscapeDecode(bytes, 0, len);
    },
  });
}

function tasks(m: Machine): TracerTasks {
  return Object.freeze({ current: (cpu: number) => m.sched.current[cpu], events$: m.streams.tasks$ });
}

function symbols(m: Machine): TracerSymbols {
  const enc = new TextEncoder();
  return Object.freeze({
    lookup: (address: bigint) => m.kallsyms.lookup(address),
    format: (address: bigint) => m.kallsyms.format(address),
    lookupName: (name: string) => m.kallsyms.lookupName(name)?.address,
    functions(glob: string) {
      const pat = enc.encode(glob);
      const seen = new Set<string>();
      for (const sym of m.kallsyms.all()) {
        if (sym.type !== 't' && sym.type !== 'T') continue;
        const name = enc.encode(sym.name);
        if (!seen.has(sym.name) && globMatch(pat, name, 0, name.length)) seen.add(sym.name);
      }
      return [...seen];
    },
  });
}

function kprobesApi(k: Kprobes): TracerKprobes {
  return Object.freeze({
    registerKprobe: (p: Kprobe) => k.registerKprobe(p),
    unregisterKprobe: (p: Kprobe) => k.unregisterKprobe(p),
    registerKprobes: (ps: readonly Kprobe[]) => k.registerKprobes(ps),
    unregisterKprobes: (ps: readonly Kprobe[]) => k.unregisterKprobes(ps),
    registerKretprobe: (rp: Kretprobe) => k.registerKretprobe(rp),
    unregisterKretprobe: (rp: Kretprobe) => k.unregisterKretprobe(rp),
    enableKprobe: (p: Kprobe) => k.enableKprobe(p),
    disableKprobe: (p: Kprobe) => k.disableKprobe(p),
    events$: k.events$,
  });
}

function debugfs(k: Kprobes): KprobesDebugfs {
  return Object.freeze({
    list: () => k.debugfs.list(),
    blacklist: () => k.debugfs.blacklist(),
    enabled: () => k.debugfs.enabled(),
    writeEnabled: (text: string) => k.debugfs.writeEnabled(text),
    get optimization() {
      return k.optimization.enabled;
    },
    setOptimization: (on: boolean) => {
      k.optimization.enabled = on;
    },
  });
}

/**
 * The one adapter from a `Machine` and its `Kprobes` to the {@link MachineView} the tracefs and every
 * tracer work through. It is the only code in this package that names those objects' members: when
 * the kernel or kprobes regroup theirs, this file alone follows.
 *
 * @example
 * const view = machineTracerView(m, Kprobes.init(m));
 * view.tasks.current(0)?.comm;
 */
export function machineTracerView(m: Machine, k: Kprobes): MachineView {
  return Object.freeze({
    nrCpus: m.cpus.length,
    clock: Object.freeze({ now: (cpu: number) => m.clock(cpu) }),
    regs: registers(m),
    memory: memory(m),
    tasks: tasks(m),
    symbols: symbols(m),
    kprobes: kprobesApi(k),
    timers: Object.freeze({ onRoundBoundary: (fn: () => void) => m.kernel.onRoundBoundary(fn) }),
    pageOf: (cpu: number, lo: number, hi: number) => m.cpus[cpu].addressSpace.lookup(lo, hi)?.data,
    countFunctions: (name: string) => m.kallsyms.lookupAll(name).filter((s) => s.type.toLowerCase() === 't').length,
    isFunction: (name: string) => m.kallsyms.lookupName(name)?.type.toLowerCase() === 't',
    isModuleLoaded: (name: string) => m.modules.list().some((mod) => mod.name === name),
    onModuleComing(fn: (module: string) => void) {
      m.modules.onModule((state, mod) => {
        if (state === ModuleState.COMING) fn(mod.name);
      });
    },
    printk: (level: number, text: string) => m.kernel.log(0, level, text),
    debugfs: debugfs(k),
  });
}
