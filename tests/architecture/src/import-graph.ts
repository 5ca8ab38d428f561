import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** One import of one file: what it names and, for a relative one, the file it resolves to. */
export interface ImportEdge {
  /** The importing file, relative to the repository root (`packages/kernel/src/machine/machine.ts`). */
  readonly from: string;
  /** The specifier as written (`./run-loop.js`, `@int3/cpu`, `../../../cpu/test/support/x.js`). */
  readonly specifier: string;
  /** A relative specifier's target file, relative to the root; undefined for a package specifier. */
  readonly to?: string;
  /** The line of the import (1-based). */
  readonly line: number;
}

const SOURCE = /\.(ts|mts|cts|tsx|js|mjs|cjs)$/;
const SKIP_DIRS = new Set(['node_modules', 'dist', '.turbo', '.vitepress', 'coverage']);

/** Every TypeScript/JavaScript source file under `dir` (relative to `root`), build output excluded. */
export function sourceFiles(root: string, dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      if (SKIP_DIRS.has(name) || name.startsWith('.')) continue;
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else if (SOURCE.test(name) && !name.endsWith('.d.ts')) out.push(relative(root, p).split(sep).join('/'));
    }
  };
  if (existsSync(join(root, dir))) walk(join(root, dir));
  return out.sort();
}

/**
 * The imports of one file, by the TypeScript pre-processor (so strings, template literals and
 * comments that merely contain `import` are not imports): static imports and re-exports, type-only
 * ones included, `import x = require()`, and dynamic `import('…')` with a literal specifier.
 */
export function importsOf(root: string, file: string): ImportEdge[] {
  const text = readFileSync(join(root, file), 'utf8');
  const info = ts.preProcessFile(text, true, true);
  const lineOf = (pos: number) => text.slice(0, pos).split('\n').length;
  return info.importedFiles.map((ref) => {
    const to = ref.fileName.startsWith('.') ? resolveRelative(root, file, ref.fileName) : undefined;
    return { from: file, specifier: ref.fileName, line: lineOf(ref.pos), ...(to === undefined ? {} : { to }) };
  });
}

/**
 * Where a relative specifier of `from` lands, as NodeNext resolves TypeScript sources: `./x.js` is
 * `./x.ts` (or `.tsx`, or the `.js` itself), a directory is its `index`. Unresolvable: the path as
 * written, relative to the root (its package is still known from the path).
 */
function resolveRelative(root: string, from: string, specifier: string): string {
  const base = resolve(root, dirname(from), specifier);
  const stem = base.replace(/\.(js|mjs|cjs|jsx)$/, '');
  const candidates = [
    base,
    `${stem}.ts`,
    `${stem}.mts`,
    `${stem}.cts`,
    `${stem}.tsx`,
    `${base}.ts`,
    join(base, 'index.ts'),
    join(base, 'index.js'),
  ];
  const hit = candidates.find((c) => existsSync(c) && statSync(c).isFile()) ?? base;
  return relative(root, hit).split(sep).join('/');
}
