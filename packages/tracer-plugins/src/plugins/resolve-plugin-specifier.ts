import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeThrown, PluginError, PluginErrorCode } from './plugin-error.js';

/** Export conditions honoured by default, as Node's ESM loader does. */
export const DEFAULT_PLUGIN_CONDITIONS: readonly string[] = ['node', 'import', 'default'];

/** True for `./x`, `../x`, `/x`, `.`, `..` and `file:` URLs: a path rather than a package name. */
export function isPathSpecifier(specifier: string): boolean {
  return (
    specifier === '.' ||
    specifier === '..' ||
    specifier.startsWith('./') ||
    specifier.startsWith('../') ||
    specifier.startsWith('file:') ||
    isAbsolute(specifier)
  );
}

/** Picks a target from an `exports` value by condition, in the object's key order (Node's rule). */
function pickExport(value: unknown, conditions: ReadonlySet<string>): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    for (const v of value) {
      const t = pickExport(v, conditions);
      if (t !== undefined) return t;
    }
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, v] of Object.entries(value)) {
    if (conditions.has(key)) {
      const t = pickExport(v, conditions);
      if (t !== undefined) return t;
    }
  }
  return undefined;
}

/** The entry file of the package in `dir` for `subpath` (`.` or `./x`). */
function packageEntry(dir: string, subpath: string, conditions: ReadonlySet<string>, specifier: string): string {
  const pj = join(dir, 'package.json');
  let pkg: { exports?: unknown; main?: unknown } = {};
  if (existsSync(pj)) {
    try {
      pkg = JSON.parse(readFileSync(pj, 'utf8'));
    } catch (e) {
      throw new PluginError(PluginErrorCode.INVALID, specifier, `${pj} is not valid JSON: ${describeThrown(e)}`);
    }
  }
  let target: string | undefined;
  if (pkg.exports !== undefined) {
    const ex = pkg.exports;
    const map =
      typeof ex === 'object' && ex !== null && !Array.isArray(ex) && Object.keys(ex).some((k) => k.startsWith('.'))
        ? (ex as Record<string, unknown>)
        : { '.': ex };
    target = pickExport(map[subpath], conditions);
    if (target === undefined) {
      throw new PluginError(
        PluginErrorCode.NOT_FOUND,
        specifier,
        `${pj} exports nothing for '${subpath}' under the conditions ${[...conditions].join(', ')}`,
      );
    }
  } else if (subpath !== '.') target = subpath;
  else target = typeof pkg.main === 'string' ? pkg.main : 'index.js';
  const file = resolve(dir, target);
  if (!existsSync(file)) {
    throw new PluginError(PluginErrorCode.NOT_FOUND, specifier, `its entry ${file} does not exist (is it built?)`);
  }
  return file;
}

/** `@scope/name/sub` → [`@scope/name`, `./sub`]. */
function splitPackageName(specifier: string): [string, string] {
  const parts = specifier.split('/');
  const n = specifier.startsWith('@') ? 2 : 1;
  const rest = parts.slice(n).join('/');
  return [parts.slice(0, n).join('/'), rest === '' ? '.' : `./${rest}`];
}

/**
 * Resolves a plugin specifier to the file to import: a path (relative to `fromDir`; a directory means
 * its package.json entry) or a package name looked up in `node_modules` from `fromDir` upwards, its
 * entry chosen by `exports` conditions, else `main`, else `index.js`.
 *
 * @see https://nodejs.org/api/esm.html#resolution-algorithm-specification (PACKAGE_RESOLVE)
 * @example
 * resolvePluginSpecifier('@int3-examples/plugin-syscount', process.cwd()); // '/…/dist/index.js'
 */
export function resolvePluginSpecifier(
  specifier: string,
  fromDir: string,
  conditions: readonly string[] = DEFAULT_PLUGIN_CONDITIONS,
): string {
  const conds = new Set([...conditions, 'default']);
  if (specifier.trim() === '') throw new PluginError(PluginErrorCode.NOT_FOUND, specifier, 'the specifier is empty');
  if (isPathSpecifier(specifier)) {
    const path = specifier.startsWith('file:') ? fileURLToPath(specifier) : resolve(fromDir, specifier);
    if (!existsSync(path)) {
      throw new PluginError(PluginErrorCode.NOT_FOUND, specifier, `no such file or directory: ${path}`);
    }
    return statSync(path).isDirectory() ? packageEntry(path, '.', conds, specifier) : path;
  }
  const [name, subpath] = splitPackageName(specifier);
  for (let dir = resolve(fromDir); ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(candidate)) return packageEntry(candidate, subpath, conds, specifier);
    if (dirname(dir) === dir) break;
  }
  throw new PluginError(
    PluginErrorCode.NOT_FOUND,
    specifier,
    `cannot find package '${name}' from ${fromDir}: install it, or pass a path (./dir or ./file.js)`,
  );
}
