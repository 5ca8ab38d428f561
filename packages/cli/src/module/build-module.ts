import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { IMAGE_DIR, KERNEL_CFLAGS } from '@int3/kernel';
import { CliError } from '../cli-error.js';
import { moduleCflags } from './module-cflags.js';

/** What {@link buildModule} writes and what the compiler said. */
export interface ModuleBuild {
  readonly output: string;
  /** gcc's (and ld's) diagnostics, as they printed them (warnings of a build that succeeded). */
  readonly diagnostics: string;
}

/**
 * `int3 module build`: compiles each C file with gcc, the kernel flags and the headers shipped in
 * @int3/kernel (`image/include`: `<linux/module.h>`, `<linux/kprobes.h>`, …), into one relocatable
 * object (`ld -r` joins several) that `insmod` takes. A missing gcc, a compile error or a warning the
 * kernel flags make fatal is a failure carrying gcc's own message. With `debugInfo` (`-g`), the module
 * carries its DWARF, as a Linux module built with CONFIG_DEBUG_INFO does.
 *
 * @see scripts/Makefile.build (Linux builds a module's objects with the kernel's flags, then links them with ld -r)
 */
export function buildModule(
  sources: readonly string[],
  output: string | undefined,
  options: { readonly debugInfo?: boolean } = {},
): ModuleBuild {
  if (sources.length === 0) throw new CliError('usage', 'name at least one C file', 'module');
  const out = output ?? `${basename(sources[0]).replace(/\.c$/, '')}.ko`;
  const modname = basename(out)
    .replace(/\.ko$/, '')
    .replace(/[^A-Za-z0-9_]/g, '_');
  const gcc = process.env.CC ?? 'gcc';
  const include = spawnSync(gcc, ['-print-file-name=include'], { encoding: 'utf8' });
  if (include.error !== undefined || include.status !== 0) {
    throw new CliError('failure', `cannot run ${gcc}: install gcc (Debian: apt-get install gcc) or set CC`);
  }
  const flags = [
    ...KERNEL_CFLAGS,
    '-nostdinc',
    '-isystem',
    include.stdout.trim(),
    '-I',
    join(IMAGE_DIR, 'include'),
    ...moduleCflags(modname),
    // DWARF for gdb (add-symbol-file, as `monitor lsmod` prints it); gcc's -g changes no generated code.
    ...(options.debugInfo === true ? ['-g'] : []),
  ];
  const dir = mkdtempSync(join(tmpdir(), 'int3-module-'));
  let diagnostics = '';
  try {
    const objects = sources.map((src, i) => {
      const object = sources.length === 1 ? out : join(dir, `${i}.o`);
      const r = spawnSync(gcc, [...flags, '-c', src, '-o', object], { encoding: 'utf8' });
      diagnostics += r.stderr ?? '';
      if (r.status !== 0)
        throw new CliError('failure', `module build: ${src}: gcc failed`, undefined, diagnostics.trimEnd());
      return object;
    });
    if (sources.length > 1) {
      const r = spawnSync('ld', ['-r', '-o', out, ...objects], { encoding: 'utf8' });
      diagnostics += r.stderr ?? '';
      if (r.error !== undefined || r.status !== 0) {
        throw new CliError('failure', 'module build: ld -r failed', undefined, diagnostics.trimEnd());
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { output: out, diagnostics };
}
