import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the project's sample image lives: `sample/sample.elf` in the @int3/cpu package directory,
 * found through module resolution (so it works from sources, from dist and from an installed package).
 * Undefined when @int3/cpu cannot be located.
 */
export function sampleImagePath(): string | undefined {
  const root = cpuPackageRoot();
  return root === undefined ? undefined : join(root, 'sample', 'sample.elf');
}

function cpuPackageRoot(): string | undefined {
  let entry: string | undefined;
  try {
    entry = fileURLToPath(import.meta.resolve('@int3/cpu'));
  } catch {
    try {
      entry = createRequire(import.meta.url).resolve('@int3/cpu');
    } catch {
      return undefined;
    }
  }
  for (let dir = dirname(entry); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === '@int3/cpu') return dir;
  }
  return undefined;
}
