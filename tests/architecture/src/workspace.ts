import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A package of the pnpm workspace, as its `package.json` declares it. */
export interface WorkspacePackage {
  /** Its directory, relative to the repository root (`packages/kernel`). */
  readonly dir: string;
  readonly name: string;
  /** Every `@int3/…` package it declares in any dependency field, with the field. */
  readonly declares: readonly { readonly name: string; readonly field: string }[];
  /** Its `exports` subpaths (`.`, `./testing`, `./package.json`), or ['.'] when it has none. */
  readonly exports: readonly string[];
}

/** The folders `pnpm-workspace.yaml` lists (`packages/*`, `apps/*`, `examples/*`, `tests/*`). */
const GROUPS = ['packages', 'apps', 'examples', 'tests'];
const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'];

/** The workspace's packages under `root`. */
export function workspacePackages(root: string): WorkspacePackage[] {
  const out: WorkspacePackage[] = [];
  for (const group of GROUPS) {
    if (!existsSync(join(root, group))) continue;
    for (const name of readdirSync(join(root, group)).sort()) {
      const manifest = join(root, group, name, 'package.json');
      if (!existsSync(manifest)) continue;
      const json = JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, unknown>;
      const declares = DEPENDENCY_FIELDS.flatMap((field) =>
        Object.keys((json[field] as Record<string, string> | undefined) ?? {})
          .filter((d) => d.startsWith('@int3/'))
          .map((d) => ({ name: d, field })),
      );
      const exp = json.exports;
      const exports = exp && typeof exp === 'object' && !Array.isArray(exp) ? Object.keys(exp) : ['.'];
      out.push({ dir: `${group}/${name}`, name: String(json.name), declares, exports });
    }
  }
  return out;
}

/** The package a repository path lies in, if any. */
export function packageOfPath(packages: readonly WorkspacePackage[], path: string): WorkspacePackage | undefined {
  return packages.find((p) => path === p.dir || path.startsWith(`${p.dir}/`));
}

/** `@scope/name/sub/path` → the package name and its subpath (`.` or `./sub/path`). */
export function splitSpecifier(specifier: string): { readonly name: string; readonly subpath: string } {
  const parts = specifier.split('/');
  const n = specifier.startsWith('@') ? 2 : 1;
  const rest = parts.slice(n).join('/');
  return { name: parts.slice(0, n).join('/'), subpath: rest === '' ? '.' : `./${rest}` };
}
