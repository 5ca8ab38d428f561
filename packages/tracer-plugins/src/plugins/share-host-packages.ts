import { existsSync, readFileSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { join, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Roots already given a hook. */
const shared = new Set<string>();

/** The resolve hook, one module per plugin (its root, peers and int3's parent URL inlined). */
function hookSource(root: string, peers: readonly string[], host: string): string {
  return `const ROOT = ${JSON.stringify(root)};
const PEERS = new Set(${JSON.stringify(peers)});
const HOST = ${JSON.stringify(host)};
function packageName(s) {
  const parts = s.split('/');
  return s.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}
export async function resolve(specifier, context, next) {
  const parent = context.parentURL;
  if (parent !== undefined && parent.startsWith(ROOT) && !/^(\\.|\\/|[a-zA-Z][a-zA-Z0-9+.-]*:)/.test(specifier)) {
    const name = packageName(specifier);
    if (name.startsWith('@int3/') || PEERS.has(name)) {
      try {
        return await next(specifier, { ...context, parentURL: HOST });
      } catch {
        // int3 has no copy of it: the plugin's own resolution stands.
      }
    }
  }
  return next(specifier, context);
}
`;
}

/** The `peerDependencies` names of the package.json in `root` (a directory), if any. */
function peerDependencies(root: string): string[] {
  const pj = join(root, 'package.json');
  if (!root.endsWith(sep) || !existsSync(pj)) return [];
  try {
    const peers = (JSON.parse(readFileSync(pj, 'utf8')) as { peerDependencies?: unknown }).peerDependencies;
    return peers !== null && typeof peers === 'object' ? Object.keys(peers) : [];
  } catch {
    return [];
  }
}

/**
 * Makes a plugin use int3's own copy of the packages it shares with int3: from now on, an import of
 * any `@int3/*` package or of a package the plugin lists in `peerDependencies`, made by a file under
 * `root` (the plugin's package directory, or its single file), resolves as int3's own import of it
 * would — so a plugin whose directory has its own `node_modules/@int3/kernel` (installed to build and
 * test it) still gets the Machine class int3 runs, and `instanceof Machine` holds. A package int3
 * does not have is resolved from the plugin as before. It is a Node resolve hook (`module.register`,
 * Node ≥ 20.6); returns false where that is not available.
 *
 * @see https://nodejs.org/api/module.html#customization-hooks
 * @example
 * shareHostPackages('/home/me/my-plugin/', import.meta.url);
 */
export function shareHostPackages(root: string, host: string = import.meta.url): boolean {
  const register = (nodeModule as { register?: (specifier: string, parent?: string) => void }).register;
  if (typeof register !== 'function') return false;
  const rootUrl = pathToFileURL(root).href;
  if (shared.has(rootUrl)) return true;
  shared.add(rootUrl);
  const source = hookSource(rootUrl, peerDependencies(root), host);
  register(`data:text/javascript,${encodeURIComponent(source)}`);
  return true;
}
