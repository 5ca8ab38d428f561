import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PageFlags, parseElf } from '@int3/cpu';
import { describe, expect, it } from 'vitest';
import { KernelError } from '../src/kernel-error.js';
import { Machine } from '../src/machine/machine.js';
import type { KernelMemory } from '../src/mm/kernel-memory.js';
import { type LoadedModule, ModuleState, type ModuleStateValue } from '../src/modules/module-loader.js';
import { IMAGE_DIR, readSampleImage, sampleProgram } from '../src/sample-image.js';

/** The allocators' bookkeeping is no part of the subsystem API: the test reads the KernelMemory behind it. */
const kernelMemory = (m: Machine) => m.kernel.memory as KernelMemory;

const image = readSampleImage();
const modulesDir = join(IMAGE_DIR, 'modules');
const ko = (name: string) => new Uint8Array(readFileSync(join(modulesDir, `${name}.ko`)));
const STATE_NAMES: Record<ModuleStateValue, string> = {
  [ModuleState.LIVE]: 'LIVE',
  [ModuleState.COMING]: 'COMING',
  [ModuleState.GOING]: 'GOING',
};

function boot() {
  const m = Machine.boot({ image, cpus: 2, programs: sampleProgram });
  const seen: string[] = [];
  let lastModule: LoadedModule | undefined;
  m.modules.onModule((state, mod) => {
    // What the notifier sees at each state: whether init already printed.
    seen.push(`${STATE_NAMES[state]} ${mod.name}`);
    lastModule = mod;
  });
  return { m, seen, last: () => lastModule };
}

/** Every page the kernel has mapped, as `address:flags`: a load that fails must leave this unchanged. */
function mappedPages(m: Machine): string[] {
  return [...m.space.pages()].map((p) => `${p.address.toString(16)}:${p.flags}`);
}

function errorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a throw');
}

describe('ModuleLoader.load', () => {
  it('should link hello.ko with PLT32, PC32, 32S and R_X86_64_64 relocations', () => {
    const types = new Set(
      parseElf(ko('hello'), 'hello.ko').relocations.flatMap((rs) => rs.entries.map((r) => r.typeName)),
    );
    expect([...types].sort()).toEqual(['R_X86_64_32S', 'R_X86_64_64', 'R_X86_64_PC32', 'R_X86_64_PLT32']);
    const { m } = boot();
    const mod = m.modules.load(ko('hello'), 'hello.ko');
    const sym = (n: string) => m.kallsyms.lookupName(`hello:${n}`)!.address;
    // R_X86_64_64 in .data: hello_ops holds absolute pointers to module text, rodata and bss.
    expect(m.space.readU64(sym('hello_ops'))).toBe(sym('hello_greet'));
    expect(m.space.readU64(sym('hello_ops') + 8n)).toBe(sym('hello_who'));
    expect(m.space.readU64(sym('hello_ops') + 16n)).toBe(sym('hello_ring'));
    expect(m.space.readCString(sym('hello_who'), 16)).toBe('int3');
    // PC32 store through hello_count; 32S (hello_ring's index store) put the length in the bss ring.
    expect(m.space.readU32(sym('hello_count'))).toBe(41);
    expect(m.space.readU64(sym('hello_ring') + 40n * 8n)).toBe(BigInt('hello, int3'.length));
    expect(mod.init).toBe(sym('init_module'));
    expect(mod.exit).toBe(sym('cleanup_module'));
  });

  it('should run init_module, whose printk calls (PLT32 to the kernel) reach dmesg', () => {
    const { m } = boot();
    m.modules.load(ko('hello'), 'hello.ko');
    const lines = m.printk.records().map((r) => r.text);
    expect(lines).toContain('hello: hello, int3 (41)');
    expect(lines).toContain('hello: loaded');
    expect(m.modules.list().map((x) => x.name)).toEqual(['hello']);
  });

  it('should add the module symbols to kallsyms with their module name and nm letters', () => {
    const { m } = boot();
    const mod = m.modules.load(ko('hello'), '/lib/modules/hello.ko');
    const k = (n: string) => m.kallsyms.lookupName(`hello:${n}`);
    expect(k('init_module')).toMatchObject({ type: 'T', module: 'hello' });
    expect(k('cleanup_module')).toMatchObject({ type: 'T', module: 'hello' });
    expect(k('hello_greet')).toMatchObject({ type: 't', module: 'hello' });
    expect(k('hello_count')).toMatchObject({ type: 'D', module: 'hello' });
    expect(k('hello_ring')).toMatchObject({ type: 'b', module: 'hello' });
    expect(k('hello_who')).toMatchObject({ type: 'r', module: 'hello' });
    expect(m.kallsyms.format(k('hello_greet')!.address + 4n)).toMatch(/^hello_greet\+0x4\/0x[0-9a-f]+ \[hello\]$/);
    expect(m.modules.moduleAt(k('hello_greet')!.address)).toBe(mod);
    expect(m.modules.moduleAt(m.kallsyms.lookupName('vfs_read')!.address)).toBeUndefined();
    // The kernel's own kmalloc is not shadowed by the module's undefined reference to it.
    expect(m.kallsyms.lookupAll('kmalloc').map((s) => s.module)).toEqual([undefined]);
  });

  it('should map module text read-only+exec, rodata read-only NX and data/bss writable NX', () => {
    const { m } = boot();
    const mod = m.modules.load(ko('hello'), 'hello.ko');
    const flags = (n: string) => m.space.flagsAt(m.kallsyms.lookupName(`hello:${n}`)!.address);
    expect(flags('init_module')).toBe(PageFlags.Present);
    expect(flags('hello_who')).toBe(PageFlags.Present | PageFlags.NoExecute);
    expect(flags('hello_count')).toBe(PageFlags.Present | PageFlags.Writable | PageFlags.NoExecute);
    expect(flags('hello_ring')).toBe(PageFlags.Present | PageFlags.Writable | PageFlags.NoExecute);
    expect(mod.regions.map(([, , f]) => f)).toEqual([
      PageFlags.Present,
      PageFlags.Present | PageFlags.NoExecute,
      PageFlags.Present | PageFlags.Writable | PageFlags.NoExecute,
    ]);
    // Module text is kernel text for textPoke (kprobes arm there); data is not.
    const greet = m.kallsyms.lookupName('hello:hello_greet')!.address;
    const poke = m.kernel.memory.textPoke(greet, new Uint8Array([0x55]));
    expect(poke.before).toEqual(new Uint8Array([0x55]));
    expect(() =>
      m.kernel.memory.textPoke(m.kallsyms.lookupName('hello:hello_count')!.address, new Uint8Array([0])),
    ).toThrow(/is not kernel text/);
  });

  it('should place the module within ±2 GiB of kernel text, as rel32 calls to the kernel need', () => {
    const { m } = boot();
    const mod = m.modules.load(ko('hello'), 'hello.ko');
    const printk = m.kallsyms.lookupName('printk')!.address;
    for (const [start, size] of mod.regions) {
      const far = start + BigInt(size) - printk;
      expect(far < 1n << 31n && far > -(1n << 31n)).toBe(true);
    }
  });

  it('should tell module notifiers COMING before init, LIVE after it, then GOING after cleanup', () => {
    const { m, seen } = boot();
    const order: string[] = [];
    m.modules.onModule((state) => order.push(`${STATE_NAMES[state]}@${m.printk.records().length}`));
    const before = m.printk.records().length;
    m.modules.load(ko('hello'), 'hello.ko');
    m.modules.unload('hello');
    // init printed two records between COMING and LIVE; cleanup printed one before GOING.
    expect(order).toEqual([`COMING@${before}`, `LIVE@${before + 2}`, `GOING@${before + 3}`]);
    expect(seen).toEqual(['COMING hello', 'LIVE hello', 'GOING hello']);
  });

  it('should publish module:loaded and module:unloaded machine events', () => {
    const { m } = boot();
    const events: string[] = [];
    m.streams.machine$.subscribe((e) =>
      events.push(e.type === 'module:loaded' || e.type === 'module:unloaded' ? `${e.type} ${e.name}` : e.type),
    );
    m.modules.load(ko('hello'), 'hello.ko');
    m.modules.unload('hello');
    expect(events).toEqual(['module:loaded hello', 'module:unloaded hello']);
  });

  it('should keep running workloads with a module loaded, and balance kmalloc/kfree in init', () => {
    const { m } = boot();
    const live = kernelMemory(m).heap.liveCount;
    m.modules.load(ko('hello'), 'hello.ko');
    expect(kernelMemory(m).heap.liveCount).toBe(live);
    const task = m.spawn(['cat', '/etc/hostname']);
    expect(m.run({ until: () => task.exited })).toEqual({ reason: 'done' });
    expect(task.exitCode).toBe(0);
  });

  it('should refuse a second load of the same module with EEXIST and keep the first', () => {
    const { m, seen } = boot();
    m.modules.load(ko('hello'), 'hello.ko');
    const pages = mappedPages(m);
    const e = errorOf(() => m.modules.load(ko('hello'), 'hello.ko'));
    expect(e).toBeInstanceOf(KernelError);
    expect(e).toMatchObject({ code: 'EEXIST', message: 'hello: module is already loaded' });
    expect(mappedPages(m)).toEqual(pages);
    expect(seen).toEqual(['COMING hello', 'LIVE hello']);
    expect(m.kallsyms.lookupAll('hello:init_module')).toHaveLength(1);
  });

  it('should undo everything when init_module fails with -ENODEV', () => {
    const { m, seen, last } = boot();
    const pages = mappedPages(m);
    const areas = kernelMemory(m).modules.allocations();
    const live = kernelMemory(m).heap.liveCount;
    const e = errorOf(() => m.modules.load(ko('nodev'), 'nodev.ko'));
    expect(e).toMatchObject({ code: 'BAD_MODULE', message: 'nodev: init_module failed with -19' });
    expect(seen).toEqual(['COMING nodev', 'GOING nodev']);
    expect(m.printk.dmesg()).toContain('nodev: no device found (probe 1)');
    expect(m.printk.dmesg()).not.toContain('cleanup_module must not run');
    expect(m.kallsyms.lookupAll('nodev:init_module')).toEqual([]);
    expect(m.kallsyms.all().filter((s) => s.module === 'nodev')).toEqual([]);
    for (const [start] of last()!.regions) expect(m.space.flagsAt(start)).toBe(0);
    expect(mappedPages(m)).toEqual(pages);
    expect(kernelMemory(m).modules.allocations()).toEqual(areas);
    expect(kernelMemory(m).heap.liveCount).toBe(live);
    expect(m.modules.list()).toEqual([]);
    // Nothing stale: a retry starts from fresh .data (the probe count is 1 again).
    expect(() => m.modules.load(ko('nodev'), 'nodev.ko')).toThrow('init_module failed with -19');
    expect(m.printk.dmesg().match(/no device found \(probe 1\)/g)).toHaveLength(2);
  });

  it('should refuse a module with an unknown symbol, naming it, before anything runs', () => {
    const { m, seen } = boot();
    const pages = mappedPages(m);
    const e = errorOf(() => m.modules.load(ko('needsym'), 'needsym.ko'));
    expect(e).toMatchObject({ code: 'ENOENT' });
    expect(e.message).toMatch(/^needsym: Unknown symbol int3_no_such_function\b/);
    expect(m.printk.dmesg()).toMatch(/\] needsym: Unknown symbol int3_no_such_function \(err -2\)$/m);
    expect(seen).toEqual([]);
    expect(m.printk.dmesg()).not.toContain('needsym: must never load');
    expect(mappedPages(m)).toEqual(pages);
    expect(m.kallsyms.all().filter((s) => s.module === 'needsym')).toEqual([]);
  });

  it('should refuse a relocation whose value does not fit its field', () => {
    const { m, seen } = boot();
    const pages = mappedPages(m);
    const e = errorOf(() => m.modules.load(ko('overflow'), 'overflow.ko'));
    expect(e).toMatchObject({ code: 'BAD_MODULE' });
    expect(e.message).toMatch(
      /^overflow: \.rela\.text\+0x[0-9a-f]+: overflow in relocation type 11 \(R_X86_64_32S\) val 0x100000000000$/,
    );
    expect(seen).toEqual([]);
    expect(mappedPages(m)).toEqual(pages);
  });

  it.each([
    ['non-ELF bytes', () => new TextEncoder().encode('#!/bin/sh\necho not a module\n'), /bad\.ko: not an ELF file/],
    ['an empty file', () => new Uint8Array(0), /bad\.ko: not an ELF file \(empty\)/],
    ['a truncated object', () => ko('hello').slice(0, 200), /bad\.ko: truncated/],
    [
      'an ET_EXEC program',
      () => sampleProgram('hello')!,
      /bad\.ko: not a relocatable object \(ET_REL\); build it with gcc -c/,
    ],
    [
      'an object for another machine',
      () => {
        const b = ko('hello');
        b[18] = 0xb7; // e_machine = EM_AARCH64
        return b;
      },
      /bad\.ko: machine 0xb7.* is not EM_X86_64/,
    ],
    [
      'a section table past the end',
      () => {
        const b = ko('hello');
        new DataView(b.buffer).setBigUint64(0x28, 0x100000n, true); // e_shoff
        return b;
      },
      /bad\.ko: truncated/,
    ],
  ])('should refuse %s with a clear error and leave nothing mapped', (_what, bytes, message) => {
    const { m, seen } = boot();
    const pages = mappedPages(m);
    expect(() => m.modules.load(bytes(), 'bad.ko')).toThrow(message);
    expect(seen).toEqual([]);
    expect(mappedPages(m)).toEqual(pages);
    expect(m.modules.list()).toEqual([]);
  });

  // Known gap (reported): parseElf's ElfError crosses into @int3/kernel unwrapped, so callers cannot
  // rely on KernelError for bad user input. The message is already clear; only the class is wrong.
  it('should report a malformed object as a KernelError with code BAD_MODULE', () => {
    const { m } = boot();
    const e = errorOf(() => m.modules.load(new Uint8Array([1, 2, 3]), 'bad.ko'));
    expect(e).toBeInstanceOf(KernelError);
    expect(e).toMatchObject({ code: 'BAD_MODULE' });
  });
});

describe('ModuleLoader.unload', () => {
  it('should run cleanup_module, unmap the module and drop its kallsyms entries', () => {
    const { m } = boot();
    const pages = mappedPages(m);
    const mod = m.modules.load(ko('hello'), 'hello.ko');
    const greet = m.kallsyms.lookupName('hello:hello_greet')!.address;
    m.modules.unload('hello');
    expect(m.printk.records().at(-1)?.text).toBe('hello: unloaded after 1 greetings');
    for (const [start, size] of mod.regions) {
      expect(m.space.flagsAt(start)).toBe(0);
      expect(m.space.isMapped(start, size)).toBe(false);
    }
    expect(mappedPages(m)).toEqual(pages);
    expect(m.kallsyms.all().filter((s) => s.module === 'hello')).toEqual([]);
    expect(m.kallsyms.lookup(greet)).toBeUndefined();
    expect(m.modules.moduleAt(greet)).toBeUndefined();
    expect(m.modules.list()).toEqual([]);
  });

  it('should let the same module load again from fresh data after an unload', () => {
    const { m, seen } = boot();
    m.modules.load(ko('hello'), 'hello.ko');
    m.modules.unload('hello');
    m.modules.load(ko('hello'), 'hello.ko');
    expect(m.printk.dmesg().match(/hello: hello, int3 \(41\)/g)).toHaveLength(2);
    expect(seen).toEqual(['COMING hello', 'LIVE hello', 'GOING hello', 'COMING hello', 'LIVE hello']);
  });

  it('should refuse an unknown module name with ENOENT', () => {
    const { m } = boot();
    expect(errorOf(() => m.modules.unload('hello'))).toMatchObject({
      code: 'ENOENT',
      message: 'hello: no such module',
    });
  });
});

const hasGcc = spawnSync('gcc', ['--version']).status === 0 && spawnSync('ld', ['--version']).status === 0;
const toolchain = () =>
  hasGcc
    ? `${spawnSync('gcc', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0]}\n${spawnSync('ld', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0]}\n`
    : '';
const sameToolchain = hasGcc && toolchain() === readFileSync(join(IMAGE_DIR, 'TOOLCHAIN'), 'utf8');

describe('image/modules/build.sh', () => {
  it.skipIf(!sameToolchain)(
    'should rebuild every committed .ko byte for byte',
    () => {
      const out = mkdtempSync(join(tmpdir(), 'int3-modules-'));
      try {
        const r = spawnSync('bash', [join(modulesDir, 'build.sh'), out], { encoding: 'utf8' });
        expect(r.status, r.stderr).toBe(0);
        for (const name of ['hello', 'needsym', 'nodev', 'overflow']) {
          expect(
            Buffer.compare(readFileSync(join(out, `${name}.ko`)), readFileSync(join(modulesDir, `${name}.ko`))),
            name,
          ).toBe(0);
        }
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    },
    60_000,
  );
});
