import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseElf } from '@int3/cpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KernelError } from '../src/kernel-error.js';
import { Machine } from '../src/machine/machine.js';
import { ModuleLoader, ModuleState } from '../src/modules/module-loader.js';
import { readSampleImage, sampleProgram } from '../src/sample-image.js';

// A freestanding ET_EXEC image, compiled at test time (gcc is on every machine), linked in the kernel
// text mapping at two places: clear of the kernel, and over it.
const FLAGS = ['-O2', '-ffreestanding', '-fno-pic', '-mcmodel=kernel', '-mno-red-zone', '-nostdlib', '-static'];
const SOURCE = 'long twice(long x) { return 2 * x; }\nlong counter = 5;\nvoid _start(void) {}\n';

let dir: string;
const build = (name: string, text: string) => {
  const out = join(dir, name);
  execFileSync('gcc', [...FLAGS, `-Wl,-Ttext=${text}`, '-Wl,--build-id=none', '-o', out, join(dir, 't.c')]);
  return parseElf(new Uint8Array(readFileSync(out)), name);
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'int3-linked-'));
  writeFileSync(join(dir, 't.c'), SOURCE);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const boot = () => Machine.boot({ image: readSampleImage(), cpus: 1, programs: sampleProgram });

describe(ModuleLoader.prototype.loadLinked, () => {
  it('should map the image where it was linked, name its symbols as the module, and tell the notifiers', () => {
    const m = boot();
    const states: number[] = [];
    m.modules.onModule((s) => states.push(s));
    const mod = m.modules.loadLinked(build('img.elf', '0xffffffff90000000'), 'img');
    expect(states).toEqual([ModuleState.COMING, ModuleState.LIVE]);
    const twice = m.kallsyms.lookupName('img:twice');
    expect(twice?.address).toBe(0xffffffff90000000n);
    expect(m.kallsyms.format(twice!.address + 1n)).toMatch(/^twice\+0x1\/0x[0-9a-f]+ \[img\]$/);
    expect(m.modules.moduleAt(twice!.address)).toBe(mod);
    expect(m.kernel.guest.call(0, twice!.address, [21n])).toBe(42n);
    expect(m.space.readU64(m.kallsyms.lookupName('counter')!.address)).toBe(5n);
  });

  it('should refuse an image over the kernel, outside the kernel text mapping, or loaded twice, and keep none of it', () => {
    const m = boot();
    const err = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        if (e instanceof KernelError) return `${e.code} ${e.message}`;
        throw e;
      }
      return 'ok';
    };
    // The kernel's pages, from its own program headers: what the messages name as taken.
    const [kStart, kEnd] = [0xffffffff81000000n, m.kallsyms.lookupName('_end')!.address];
    const relink = new RegExp(
      `: link it in \\[0xffffffff80000000, 0x${kStart.toString(16)}\\) or \\[0x${((kEnd + 0xfffn) & ~0xfffn).toString(16)}, ` +
        '0xffffffffa0000000\\), e\\.g\\. with -Wl,-Ttext=0xffffffff90000000$',
    );
    const over = err(() => m.modules.loadLinked(build('over.elf', '0xffffffff81000000'), 'over'));
    expect(over).toMatch(
      /^BAD_MODULE over\.elf: program header \d \[0xffffffff81000000, 0xffffffff810[0-9a-f]+\) overlaps the kernel \[0xffffffff81000000, 0xffffffff810[0-9a-f]+000\): /,
    );
    expect(over).toMatch(relink);
    const out = err(() => m.modules.loadLinked(build('mod.elf', '0xffffffffa0100000'), 'mod'));
    expect(out).toMatch(
      /^BAD_MODULE mod\.elf: program header \d \[0xffffffffa0[0-9a-f]+, 0x[0-9a-f]+\) is outside the kernel text mapping \[0xffffffff80000000, 0xffffffffa0000000\): /,
    );
    expect(out).toMatch(relink);
    // Over an image linked before: the page is taken, and the same hint.
    m.modules.loadLinked(build('first.elf', '0xffffffff90000000'), 'first');
    expect(err(() => m.modules.loadLinked(build('again.elf', '0xffffffff90000000'), 'again'))).toMatch(
      /^BAD_MODULE again\.elf: page 0xffffffff8?f[0-9a-f]+ is already mapped: link it in /,
    );
    expect(m.modules.list().map((x) => x.name)).toEqual(['first']);
    m.modules.loadLinked(build('img.elf', '0xffffffff98000000'), 'img');
    expect(err(() => m.modules.loadLinked(build('img.elf', '0xffffffff98000000'), 'img'))).toMatch(/^EEXIST/);
    expect(err(() => m.modules.unload('img'))).toMatch(/^EBUSY img: a linked image \(--image\) cannot be unloaded/);
  });
});
