// `prepack` of every published package (run by `pnpm pack` and `pnpm publish` in the package's
// directory): build with `tsc -b`, then delete the outputs in dist/ whose source in src/ is gone, so a
// tarball never ships a module that was renamed or removed since an earlier build. It deletes only
// such orphans, never the current outputs: other processes (tests running the built CLI) may be
// using dist/ at the same time.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const pkg = process.cwd();
const tsc = join(root, 'node_modules', '.bin', 'tsc');

const build = spawnSync(tsc, ['-b'], { cwd: pkg, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const OUTPUT = /\.(js|d\.ts)(\.map)?$/;
const dist = join(pkg, 'dist');
for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !OUTPUT.test(entry.name)) continue;
  const file = join(entry.parentPath, entry.name);
  const stem = relative(dist, file).replace(OUTPUT, '');
  if (!existsSync(join(pkg, 'src', `${stem}.ts`))) {
    rmSync(file);
    console.error(`removed ${relative(pkg, file)} (its source is gone)`);
  }
}
