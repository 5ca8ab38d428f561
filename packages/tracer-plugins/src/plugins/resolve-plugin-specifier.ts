import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { moduleResolve } from 'import-meta-resolve';
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

/** Node's resolution of `specifier` from `parent`; its errors become NOT_FOUND with Node's words. */
function nodeResolve(specifier: string, parent: URL, conditions: ReadonlySet<string>, plugin: string): string {
  let url: URL;
  try {
    url = moduleResolve(specifier, parent, new Set(conditions));
  } catch (e) {
    const code = (e as { code?: string }).code;
    const hint =
      code === 'ERR_MODULE_NOT_FOUND' && !isPathSpecifier(specifier)
        ? ': install it, or pass a path (./dir or ./file.js)'
        : '';
    throw new PluginError(PluginErrorCode.NOT_FOUND, plugin, `${describeThrown(e)}${hint}`, { cause: e });
  }
  if (url.protocol !== 'file:') {
    throw new PluginError(PluginErrorCode.NOT_FOUND, plugin, `'${specifier}' resolves to ${url.href}, not a file`);
  }
  return fileURLToPath(url);
}

/**
 * The entry of the package in directory `dir`, as importing it by name would resolve: its `exports`
 * `.` entry through Node's package self-resolution, else — a package without `exports` — `main`,
 * else `index.js`.
 */
function directoryEntry(dir: string, conditions: ReadonlySet<string>, plugin: string): string {
  const pj = join(dir, 'package.json');
  let pkg: { name?: unknown; exports?: unknown; main?: unknown } = {};
  if (existsSync(pj)) {
    try {
      pkg = JSON.parse(readFileSync(pj, 'utf8'));
    } catch (e) {
      throw new PluginError(PluginErrorCode.INVALID, plugin, `${pj} is not valid JSON: ${describeThrown(e)}`);
    }
  }
  let file: string;
  if (pkg.exports !== undefined && typeof pkg.name === 'string') {
    file = nodeResolve(pkg.name, pathToFileURL(pj), conditions, plugin);
  } else if (pkg.exports !== undefined) {
    throw new PluginError(PluginErrorCode.INVALID, plugin, `${pj} has "exports" but no "name" to resolve it by`);
  } else file = resolve(dir, typeof pkg.main === 'string' ? pkg.main : 'index.js');
  if (!existsSync(file)) {
    throw new PluginError(PluginErrorCode.NOT_FOUND, plugin, `its entry ${file} does not exist (is it built?)`);
  }
  return file;
}

/**
 * Resolves a plugin specifier to the file to import, by Node's own ESM resolution algorithm (the
 * `import-meta-resolve` implementation, so the parent and the conditions can be chosen): a package
 * name — `exports` with conditions and subpath patterns (`pkg/tracers/*`), else `main` — is looked up
 * in `node_modules` from `fromDir` upwards; a file path is taken relative to `fromDir`; a directory
 * means the package in it.
 *
 * @see https://nodejs.org/api/esm.html#resolution-algorithm-specification (ESM_RESOLVE)
 * @example
 * resolvePluginSpecifier('@int3-examples/plugin-syscount', process.cwd()); // '/…/dist/index.js'
 */
export function resolvePluginSpecifier(
  specifier: string,
  fromDir: string,
  conditions: readonly string[] = DEFAULT_PLUGIN_CONDITIONS,
): string {
  const conds = new Set(conditions);
  if (specifier.trim() === '') throw new PluginError(PluginErrorCode.NOT_FOUND, specifier, 'the specifier is empty');
  if (isPathSpecifier(specifier)) {
    const path = specifier.startsWith('file:') ? fileURLToPath(specifier) : resolve(fromDir, specifier);
    if (!existsSync(path)) {
      throw new PluginError(PluginErrorCode.NOT_FOUND, specifier, `no such file or directory: ${path}`);
    }
    return statSync(path).isDirectory() ? directoryEntry(path, conds, specifier) : path;
  }
  // A parent inside fromDir: Node looks for node_modules from the parent's directory upwards.
  return nodeResolve(specifier, pathToFileURL(join(resolve(fromDir), '<int3-plugin-parent>')), conds, specifier);
}
