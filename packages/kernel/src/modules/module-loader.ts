import {
  type AddressSpace,
  ElfError,
  type ElfFile,
  type ElfSymbol,
  loadElf,
  PAGE_SIZE,
  PageFlags,
  parseElf,
  SHF,
  SHN,
  SHT,
} from '@int3/cpu';
import { kallsymsInputs } from '../boot/kernel-image.js';
import type { MachineEvents } from '../events/machine-events.js';
import type { Kallsyms } from '../kallsyms/kallsyms.js';
import { KernelError } from '../kernel-error.js';
import type { Clock } from '../machine/cpu-clocks.js';
import type { GuestCalls } from '../machine/kernel-api.js';
import { KernelLayout } from '../mm/kernel-layout.js';
import type { KernelMemory } from '../mm/kernel-memory.js';
import { LogLevel } from '../printk/printk-buffer.js';
import { setModuleParams } from './module-params.js';
import { applyRelocation } from './relocate.js';

/** `enum module_state`, the values module notifiers receive. */
export const ModuleState = { LIVE: 0, COMING: 1, GOING: 2 } as const;
export type ModuleStateValue = (typeof ModuleState)[keyof typeof ModuleState];

/** A loaded module. */
export interface LoadedModule {
  readonly name: string;
  /** Start and end of the module's text (kprobes: "is this module text?"). */
  readonly textStart: bigint;
  readonly textEnd: bigint;
  /** Every allocated region: [start, size, page flags]. */
  readonly regions: readonly (readonly [bigint, number, number])[];
  /** Address of each allocated section, by name. */
  readonly sections: ReadonlyMap<string, bigint>;
  /** Size of each allocated section, by name. */
  readonly sectionSizes?: ReadonlyMap<string, number>;
  readonly init: bigint | undefined;
  readonly exit: bigint | undefined;
  state: ModuleStateValue;
}

/** The loaded modules of a {@link ModuleLoader}, in load order, with each one's state. */
export type ModuleLoaderState = readonly (readonly [LoadedModule, ModuleStateValue])[];

/** A module notifier: told when a module is COMING (before init), LIVE (after), GOING (before unload). */
export type ModuleNotifier = (state: ModuleStateValue, module: LoadedModule) => void;

type Group = 'text' | 'rodata' | 'data';

/** What the {@link ModuleLoader} needs of the kernel around it. */
export interface ModuleLoaderHost {
  /** The kernel address space. */
  readonly space: AddressSpace;
  readonly memory: Pick<KernelMemory, 'moduleAlloc' | 'vmallocMap' | 'free'>;
  /** Resolves undefined symbols; gets each module's symbols. */
  readonly kallsyms: Pick<Kallsyms, 'addRegion' | 'removeRegion' | 'lookupAll'>;
  /** Runs `init_module` and `cleanup_module`. */
  readonly guest: Pick<GuestCalls, 'call'>;
  /** The guest's `init_task`: init and exit run as it. */
  readonly initTask: bigint;
  /** Where the kernel image lies, [start, end) page-rounded: a linked image must stay clear of it. */
  readonly kernelExtent: readonly [bigint, bigint];
  readonly clock: Clock;
  readonly events: Pick<MachineEvents, 'log' | 'emitMachine'>;
  /** Defines the module API the kernel's C lacks (once; later calls change nothing). */
  defineApiGates(): void;
}

/**
 * The module loader: links a relocatable object (`ET_REL`, built with the kernel flags) into the module
 * area — text read-only+exec, rodata read-only, data and bss writable+NX — resolving undefined symbols
 * against kallsyms, then runs `init_module`. `cleanup_module` runs on unload, and the memory is freed.
 *
 * @see kernel/module/main.c load_module(), free_module(); arch/x86/kernel/module.c apply_relocate_add()
 */
export class ModuleLoader {
  private readonly modules = new Map<string, LoadedModule>();
  private readonly notifiers: ModuleNotifier[] = [];
  /** Modules adopted by {@link loadLinked}: never unloaded, so never forgotten. */
  private readonly linked = new Set<string>();

  /** @internal The machine builds its loader; use `Machine.modules`. */
  constructor(private readonly m: ModuleLoaderHost) {}

  /** Adds a module notifier; returns its unregister handle. */
  onModule(fn: ModuleNotifier): () => void {
    this.notifiers.push(fn);
    return () => {
      const i = this.notifiers.indexOf(fn);
      if (i >= 0) this.notifiers.splice(i, 1);
    };
  }

  /** Loaded modules, in load order. */
  list(): readonly LoadedModule[] {
    return [...this.modules.values()];
  }

  /**
   * The loaded modules and their states (notifiers are host closures: they stay). Their memory and
   * kallsyms regions are saved with the address space and kallsyms.
   * @internal Snapshot plumbing: the machine snapshot saves and restores it.
   */
  save(): ModuleLoaderState {
    return Object.freeze([...this.modules.values()].map((mod) => Object.freeze([mod, mod.state] as const)));
  }

  /**
   * Puts back the modules of a {@link save}: the same module objects, in their saved states.
   * @internal Snapshot plumbing: the machine snapshot saves and restores it.
   */
  restore(state: ModuleLoaderState): void {
    this.modules.clear();
    for (const [mod, s] of state) {
      mod.state = s;
      this.modules.set(mod.name, mod);
    }
  }

  /** The module whose text contains `address`, if any. */
  moduleAt(address: bigint): LoadedModule | undefined {
    for (const mod of this.modules.values()) if (address >= mod.textStart && address < mod.textEnd) return mod;
    return undefined;
  }

  /**
   * `insmod`: links the object and runs its `init_module` on `cpu`. All or nothing: a bad object, an
   * unknown symbol, an overflowing relocation or a failing init leaves nothing behind.
   */
  load(bytes: Uint8Array, fileName: string, cpu = 0, params: readonly string[] = []): LoadedModule {
    const name = fileName.replace(/^.*\//, '').replace(/\.(ko|o)$/, '');
    if (this.modules.has(name)) throw new KernelError('EEXIST', `${name}: module is already loaded`);
    let elf: ElfFile;
    try {
      elf = parseElf(bytes, fileName);
    } catch (e) {
      if (e instanceof ElfError) throw new KernelError('BAD_MODULE', e.message);
      throw e;
    }
    if (elf.type !== 'rel')
      throw new KernelError('BAD_MODULE', `${fileName}: not a relocatable object (ET_REL); build it with gcc -c`);
    this.m.defineApiGates();
    this.checkUndefinedSymbols(elf, name, cpu);
    const { sections, regions, commons } = this.layout(elf, name);
    const m = this.m;
    const symbolAddress = (sym: ElfSymbol): bigint => this.resolve(sym, sections, commons, name);
    try {
      for (const rs of elf.relocations) {
        const target = sections.get(rs.targetSection);
        if (target === undefined) continue; // relocations of a non-allocated section (debug info)
        for (const rel of rs.entries) {
          const sym = elf.symbols[rel.symbol];
          const S = rel.symbol === 0 ? 0n : symbolAddress(sym);
          applyRelocation(
            m.space,
            target + BigInt(rel.offset),
            rel.type,
            rel.typeName,
            S,
            rel.addend,
            `${name}: ${rs.name}+0x${rel.offset.toString(16)}`,
          );
        }
      }
    } catch (e) {
      for (const [start] of regions) m.memory.free(start);
      throw e;
    }
    // Text becomes read-only+exec and rodata read-only only now that relocation wrote them.
    for (const [start, size, flags] of regions) m.space.protect(start, size, flags);
    // Step: `insmod foo.ko name=value…` sets the parameters before init (kernel/module/main.c parse_args).
    const paramSection = elf.sections.find((x) => x.name === '__param' && sections.has(x.index));
    try {
      setModuleParams(
        {
          space: m.space,
          allocString: (size) => {
            const at = m.memory.vmallocMap(Math.max(1, size));
            regions.push([at, size, PageFlags.Present | PageFlags.Writable | PageFlags.NoExecute]);
            return at;
          },
          log: (level, text) => m.events.log(cpu, level, text),
        },
        name,
        paramSection && { address: sections.get(paramSection.index)!, size: paramSection.size },
        params,
      );
    } catch (e) {
      for (const [start] of regions) m.memory.free(start);
      throw e;
    }
    const textSections = elf.sections.filter((s) => sections.has(s.index) && (s.flags & SHF.EXECINSTR) !== 0);
    const textStart = textSections.length ? sections.get(textSections[0].index)! : regions[0][0];
    const textEnd = textSections.reduce((end, s) => {
      const e = sections.get(s.index)! + BigInt(s.size);
      return e > end ? e : end;
    }, textStart);
    const findFunc = (n: string) => {
      const s = elf.symbols.find((x) => x.name === n && x.shndx !== SHN.UNDEF);
      return s ? symbolAddress(s) : undefined;
    };
    const byName = new Map<string, bigint>();
    const sizes = new Map<string, number>();
    for (const s of elf.sections) {
      if (!sections.has(s.index)) continue;
      byName.set(s.name, sections.get(s.index)!);
      sizes.set(s.name, s.size);
    }
    const mod: LoadedModule = {
      name,
      textStart,
      textEnd,
      regions,
      sections: byName,
      sectionSizes: sizes,
      init: findFunc('init_module'),
      exit: findFunc('cleanup_module'),
      state: ModuleState.COMING,
    };
    m.kallsyms.addRegion(
      name,
      kallsymsInputs(elf, (s) => symbolAddress(s)).filter((s) => s.address !== 0n),
      `module:${name}`,
    );
    this.modules.set(name, mod);
    let ret: number;
    try {
      this.notify(ModuleState.COMING, mod);
      ret =
        mod.init === undefined
          ? 0
          : Number(BigInt.asIntN(32, m.guest.call(cpu, mod.init, [], { asTask: m.initTask, maySleep: true })));
    } catch (e) {
      // An init that oopses or runs away leaves nothing behind either.
      this.teardown(mod);
      throw e;
    }
    if (ret !== 0) {
      this.teardown(mod);
      throw new KernelError('BAD_MODULE', `${name}: init_module failed with ${ret}`);
    }
    mod.state = ModuleState.LIVE;
    this.notify(ModuleState.LIVE, mod);
    m.events.emitMachine({ type: 'module:loaded', at: m.clock.clock(cpu), cpu, name, base: regions[0][0] });
    return mod;
  }

  /**
   * Adopts a freestanding ET_EXEC image, linked at its own addresses, as the module `name`: its PT_LOAD
   * segments are mapped where they were linked, its symbols join kallsyms as the module's, and the
   * notifiers see it COMING then LIVE, so kprobes take its text as module text. There is no init to run
   * and no relocation: the image must lie in the kernel text mapping, clear of the kernel and of what is
   * mapped there already. It cannot be unloaded (its pages are not the module allocator's).
   *
   * Linux has no such call; it is how int3 probes code that was not built as a module (`--image`).
   * @throws KernelError BAD_MODULE (not ET_EXEC, outside the kernel text mapping, overlapping), EEXIST
   */
  loadLinked(elf: ElfFile, name: string): LoadedModule {
    if (this.modules.has(name)) throw new KernelError('EEXIST', `${name}: module is already loaded`);
    const low = KernelLayout.START_KERNEL_MAP;
    const high = KernelLayout.MODULES_VADDR;
    const [kStart, kEnd] = this.m.kernelExtent;
    const hex = (a: bigint) => `0x${a.toString(16)}`;
    // What works, for every refusal: the free parts of the kernel text mapping and a flag that links there.
    const relink =
      `link it in [${hex(low)}, ${hex(kStart)}) or [${hex(kEnd)}, ${hex(high)}), ` +
      `e.g. with -Wl,-Ttext=0xffffffff90000000`;
    const segments = elf.segments.filter((s) => s.memSize > 0);
    for (const s of segments) {
      const end = s.vaddr + BigInt(s.memSize);
      const at = `program header ${s.index} [${hex(s.vaddr)}, ${hex(end)})`;
      if (s.vaddr < low || end > high) {
        throw new KernelError(
          'BAD_MODULE',
          `${elf.name}: ${at} is outside the kernel text mapping [${hex(low)}, ${hex(high)}): ${relink}`,
        );
      }
      if (s.vaddr < kEnd && end > kStart) {
        throw new KernelError(
          'BAD_MODULE',
          `${elf.name}: ${at} overlaps the kernel [${hex(kStart)}, ${hex(kEnd)}): ${relink}`,
        );
      }
    }
    try {
      loadElf(elf, this.m.space);
    } catch (e) {
      if (!(e instanceof ElfError)) throw e;
      // Something else is mapped there (an image linked before this one).
      throw new KernelError('BAD_MODULE', e.code === 'LOAD_CONFLICT' ? `${e.message}: ${relink}` : e.message);
    }
    const text = segments.filter((s) => s.execute);
    let textStart = text[0]?.vaddr ?? 0n;
    let textEnd = textStart;
    for (const s of text) {
      if (s.vaddr < textStart) textStart = s.vaddr;
      if (s.vaddr + BigInt(s.memSize) > textEnd) textEnd = s.vaddr + BigInt(s.memSize);
    }
    const byName = new Map<string, bigint>();
    for (const s of elf.sections) if ((s.flags & SHF.ALLOC) !== 0 && s.size > 0) byName.set(s.name, s.addr);
    const mod: LoadedModule = {
      name,
      textStart,
      textEnd,
      regions: [],
      sections: byName,
      init: undefined,
      exit: undefined,
      state: ModuleState.COMING,
    };
    this.m.kallsyms.addRegion(name, kallsymsInputs(elf), `module:${name}`);
    this.modules.set(name, mod);
    this.notify(ModuleState.COMING, mod);
    mod.state = ModuleState.LIVE;
    this.notify(ModuleState.LIVE, mod);
    this.linked.add(name);
    this.m.events.emitMachine({
      type: 'module:loaded',
      at: this.m.clock.clock(0),
      cpu: 0,
      name,
      base: segments[0]?.vaddr ?? 0n,
    });
    return mod;
  }

  /** `rmmod`: runs `cleanup_module`, tells the notifiers the module is GOING, frees its memory. */
  unload(name: string, cpu = 0): void {
    const mod = this.modules.get(name);
    if (!mod) throw new KernelError('ENOENT', `${name}: no such module`);
    if (this.linked.has(name)) throw new KernelError('EBUSY', `${name}: a linked image (--image) cannot be unloaded`);
    if (mod.exit !== undefined) this.m.guest.call(cpu, mod.exit, [], { asTask: this.m.initTask, maySleep: true });
    this.teardown(mod);
    this.m.events.emitMachine({ type: 'module:unloaded', at: this.m.clock.clock(cpu), cpu, name });
  }

  private teardown(mod: LoadedModule): void {
    mod.state = ModuleState.GOING;
    this.notify(ModuleState.GOING, mod);
    this.modules.delete(mod.name);
    this.m.kallsyms.removeRegion(`module:${mod.name}`);
    for (const [start] of mod.regions) this.m.memory.free(start);
  }

  private notify(state: ModuleStateValue, mod: LoadedModule): void {
    for (const fn of [...this.notifiers]) fn(state, mod);
  }

  /** Places every allocated section in one of three page-aligned regions by permission. */
  private layout(
    elf: ElfFile,
    name: string,
  ): { sections: Map<number, bigint>; regions: [bigint, number, number][]; commons: Map<number, bigint> } {
    const groups: Record<Group, { index: number; offset: number }[]> = { text: [], rodata: [], data: [] };
    const sizes: Record<Group, number> = { text: 0, rodata: 0, data: 0 };
    for (const s of elf.sections) {
      if ((s.flags & SHF.ALLOC) === 0 || s.size === 0) continue;
      const g: Group = s.flags & SHF.EXECINSTR ? 'text' : s.flags & SHF.WRITE ? 'data' : 'rodata';
      const align = Math.max(1, s.addralign);
      sizes[g] = Math.ceil(sizes[g] / align) * align;
      groups[g].push({ index: s.index, offset: sizes[g] });
      sizes[g] += s.size;
    }
    // Common symbols get space at the end of data.
    for (const sym of elf.symbols) {
      if (sym.shndx === SHN.COMMON) sizes.data = Math.ceil(sizes.data / 16) * 16 + sym.size;
    }
    if (sizes.text + sizes.rodata + sizes.data === 0)
      throw new KernelError('BAD_MODULE', `${name}: no allocatable sections`);
    const flags: Record<Group, number> = {
      text: PageFlags.Present,
      rodata: PageFlags.Present | PageFlags.NoExecute,
      data: PageFlags.Present | PageFlags.Writable | PageFlags.NoExecute,
    };
    const sections = new Map<number, bigint>();
    const regions: [bigint, number, number][] = [];
    try {
      for (const g of ['text', 'rodata', 'data'] as const) {
        if (sizes[g] === 0) continue;
        const size = Math.ceil(sizes[g] / PAGE_SIZE) * PAGE_SIZE;
        const base = this.m.memory.moduleAlloc(size, PageFlags.Present | PageFlags.Writable | PageFlags.NoExecute);
        for (const { index, offset } of groups[g]) {
          const s = elf.sections[index];
          const addr = base + BigInt(offset);
          sections.set(index, addr);
          if (s.type !== SHT.NOBITS) this.m.space.write(addr, elf.bytes.subarray(s.offset, s.offset + s.size));
        }
        regions.push([base, size, flags[g]]);
      }
    } catch (e) {
      for (const [start] of regions) this.m.memory.free(start);
      throw e;
    }
    return { sections, regions, commons: this.placeCommons(elf, sections, regions) };
  }

  /** Common symbols go after the last writable section, 16-byte aligned. */
  private placeCommons(
    elf: ElfFile,
    sections: Map<number, bigint>,
    regions: [bigint, number, number][],
  ): Map<number, bigint> {
    const out = new Map<number, bigint>();
    let end = 0n;
    for (const s of elf.sections) {
      const a = sections.get(s.index);
      if (a !== undefined && (s.flags & SHF.WRITE) !== 0 && a + BigInt(s.size) > end) end = a + BigInt(s.size);
    }
    if (end === 0n && regions.length) end = regions[regions.length - 1][0];
    for (const sym of elf.symbols) {
      if (sym.shndx !== SHN.COMMON) continue;
      end = (end + 15n) & ~15n;
      out.set(sym.index, end);
      end += BigInt(sym.size);
    }
    return out;
  }

  /**
   * Every undefined symbol the module names must be a global kernel symbol. Each one that is not is
   * logged as Linux's `simplify_symbols()` logs it (`mod: Unknown symbol foo (err -2)`, KERN_WARNING),
   * all of them before the load fails with ENOENT — which insmod reports as "Unknown symbol in module".
   * @see kernel/module/main.c simplify_symbols()
   */
  private checkUndefinedSymbols(elf: ElfFile, name: string, cpu: number): void {
    const unknown = elf.symbols.filter(
      (sym) => sym.index !== 0 && sym.shndx === SHN.UNDEF && sym.name !== '' && !this.kernelSymbol(sym.name),
    );
    for (const sym of unknown) this.m.events.log(cpu, LogLevel.WARNING, `${name}: Unknown symbol ${sym.name} (err -2)`);
    if (unknown.length > 0) {
      throw new KernelError('ENOENT', `${name}: Unknown symbol ${unknown[0]!.name} (err -2)`);
    }
  }

  /** The global kernel symbol `name` links to: only global ones link, as only exported ones do in Linux. */
  private kernelSymbol(name: string): bigint | undefined {
    return this.m.kallsyms.lookupAll(name).find((s) => s.type === s.type.toUpperCase())?.address;
  }

  private resolve(sym: ElfSymbol, sections: Map<number, bigint>, commons: Map<number, bigint>, name: string): bigint {
    if (sym.shndx === SHN.ABS) return sym.value;
    if (sym.shndx === SHN.COMMON) return commons.get(sym.index)!;
    if (sym.shndx !== SHN.UNDEF) {
      if (sym.type === 'section' || sections.has(sym.shndx)) {
        const base = sections.get(sym.shndx);
        if (base === undefined)
          throw new KernelError(
            'BAD_MODULE',
            `${name}: symbol ${sym.name || `#${sym.index}`} is in a non-allocated section`,
          );
        return base + sym.value;
      }
      throw new KernelError(
        'BAD_MODULE',
        `${name}: symbol ${sym.name} is in section ${sym.shndx}, which is not loaded`,
      );
    }
    // Only global symbols link, as only exported ones do in Linux: a `static` function is not an API.
    const k = this.kernelSymbol(sym.name);
    if (k === undefined) throw new KernelError('ENOENT', `${name}: Unknown symbol ${sym.name} (err -2)`);
    return k;
  }
}
