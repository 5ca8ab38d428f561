import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..', '..');
const shims = join(here, '..', 'playground', 'shims');
const kernelImage = join(repo, 'packages', 'kernel', 'image');

/** The Node built-ins the int3 packages import, and the browser module that stands in for each. */
const SHIMS: Readonly<Record<string, string>> = {
  crypto: 'node-crypto.ts',
  fs: 'node-fs.ts',
  path: 'node-path.ts',
  url: 'node-url.ts',
  util: 'node-util.ts',
  module: 'node-module.ts',
  readline: 'node-readline.ts',
};

const UNAVAILABLE = join(shims, 'node-unavailable.ts');
/** The id prefix of the stand-ins for the Node built-ins of a Node-only module: its names, each throwing. */
const NODE_ONLY_PREFIX = '\0int3-node-only:';

/** Is this module in the repository (the packages, the playground, their installed dependencies), not the site's theme? */
function inRepo(id: string): boolean {
  return !relative(repo, id).startsWith('..') && !id.startsWith(join(here, '..', '.vitepress'));
}

/** Is this module the int3 packages' own code (or the playground's), not a dependency's? */
const isInt3 = (id: string) => inRepo(id) && !id.includes(`${sep}node_modules${sep}`);

interface EstreeProgram {
  readonly body: readonly {
    type: string;
    source?: { value?: unknown } | null;
    specifiers?: readonly unknown[];
    importKind?: string;
    declaration?: { type: string; id?: { name?: string } | null; declarations?: { id: { name?: string } }[] } | null;
  }[];
}

/** The names a module exports (`default` included), from its syntax tree. */
export function exportedNames(program: EstreeProgram): Set<string> {
  const names = new Set<string>();
  for (const node of program.body) {
    if (node.type === 'ExportDefaultDeclaration') names.add('default');
    if (node.type !== 'ExportNamedDeclaration') continue;
    const d = node.declaration;
    if (d?.id?.name) names.add(d.id.name);
    for (const v of d?.declarations ?? []) if (v.id.name) names.add(v.id.name);
    for (const spec of (node.specifiers ?? []) as { exported: { name?: string; value?: string } }[]) {
      names.add(spec.exported.name ?? String(spec.exported.value));
    }
  }
  return names;
}

/** A module's imports of Node built-ins, each with the names it imports (`default`; `*ns` for `* as ns`). */
export function nodeBuiltinImports(program: EstreeProgram): Map<string, Set<string>> {
  const imports = new Map<string, Set<string>>();
  for (const node of program.body) {
    if (node.type !== 'ImportDeclaration' || node.importKind === 'type') continue;
    const source = String(node.source?.value);
    if (!source.startsWith('node:')) continue;
    const names = imports.get(source) ?? new Set<string>();
    for (const spec of (node.specifiers ?? []) as {
      type: string;
      importKind?: string;
      imported?: { name?: string; value?: string };
      local?: { name?: string };
    }[]) {
      if (spec.importKind === 'type') continue;
      if (spec.type === 'ImportDefaultSpecifier') names.add('default');
      else if (spec.type === 'ImportNamespaceSpecifier') names.add(`*${spec.local?.name}`);
      else names.add(spec.imported?.name ?? String(spec.imported?.value));
    }
    imports.set(source, names);
  }
  return imports;
}

/**
 * Resolves the Node built-ins imported by the int3 packages (and by iced-x86) to the playground's
 * browser modules in `playground/shims`: a virtual file system holding the kernel image, SHA-256 and
 * SHA-1 in JavaScript, POSIX paths.
 *
 * A few modules of the packages need what a browser has no equivalent of — the tracer host's
 * AsyncLocalStorage, the plugin watchdog's node:vm timeout, the module builder's gcc — and the
 * playground uses none of them (it loads no plugin and builds no module). Such a module (one importing
 * a built-in with no stand-in) is declared free of side effects, so the bundle drops it when nothing
 * the playground calls uses it, and its built-ins resolve to stand-ins whose every name throws. So is a
 * module importing a name a stand-in lacks (the plugin loader's `realpathSync`). Should
 * a change make the playground use one, the build fails naming the built-in and the module: no Node
 * built-in, and no stand-in that only pretends, is left in the bundle.
 */
export function nodeBuiltinShims(): Plugin {
  /** Each Node-only module's built-in imports, by module id. */
  const nodeOnly = new Map<string, Map<string, Set<string>>>();
  /** What each stand-in exports, by built-in name. */
  const shimExports = new Map<string, Set<string>>();
  const covered = (parse: (code: string) => EstreeProgram, source: string, names: Set<string>): boolean => {
    const shim = SHIMS[source.replace(/^node:/, '')];
    if (shim === undefined) return false;
    let exported = shimExports.get(shim);
    if (exported === undefined) {
      exported = exportedNames(parse(readFileSync(join(shims, shim), 'utf8')));
      shimExports.set(shim, exported);
    }
    // A namespace import's names are not known here: treated as a name the stand-in lacks.
    return [...names].every((n) => !n.startsWith('*') && exported.has(n));
  };
  return {
    name: 'int3:node-builtin-shims',
    enforce: 'pre',
    resolveId(source, importer) {
      const name = source.replace(/^node:/, '');
      const isBuiltin = source.startsWith('node:') || Object.hasOwn(SHIMS, name);
      if (!isBuiltin || importer === undefined) return null;
      if (nodeOnly.get(importer)?.has(source)) return `${NODE_ONLY_PREFIX}${source}@${importer}`;
      if (!inRepo(importer) && !importer.includes(`${sep}iced-x86${sep}`)) return null;
      const shim = SHIMS[name];
      if (shim === undefined) this.error(`${source} (imported by ${importer}) has no browser stand-in`);
      return join(shims, shim);
    },
    load(id) {
      if (!id.startsWith(NODE_ONLY_PREFIX)) return null;
      const at = id.indexOf('@', NODE_ONLY_PREFIX.length);
      const source = id.slice(NODE_ONLY_PREFIX.length, at);
      const importer = id.slice(at + 1);
      const names = [...(nodeOnly.get(importer)?.get(source) ?? [])].filter(
        (n) => !n.startsWith('*') && n !== 'default',
      );
      const message = JSON.stringify(`int3: ${source} (for ${relative(repo, importer)}) is not in the browser`);
      return [
        `const unavailable = () => { throw new Error(${message}); };`,
        ...names.map((n) => `export const ${n} = unavailable;`),
        'export default {};',
      ].join('\n');
    },
    transform(code, id) {
      if (!isInt3(id) || !/\.[cm]?[jt]s$/.test(id) || !/["'`]node:/.test(code)) return null;
      const imports = nodeBuiltinImports(this.parse(code, { lang: /\.tsx?$/.test(id) ? 'ts' : 'js' }) as never);
      const parseTs = (src: string) => this.parse(src, { lang: 'ts' }) as unknown as EstreeProgram;
      if ([...imports].every(([source, names]) => covered(parseTs, source, names))) return null;
      // A namespace's stand-in gets the names the module reads from it (`ns.name`).
      for (const names of imports.values()) {
        for (const n of [...names].filter((n) => n.startsWith('*'))) {
          for (const m of code.matchAll(new RegExp(`\\b${n.slice(1)}\\.([A-Za-z_$][\\w$]*)`, 'g'))) names.add(m[1]);
        }
      }
      nodeOnly.set(id, imports);
      return { code, map: null, moduleSideEffects: false };
    },
    generateBundle(_options, bundle) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk') continue;
        const kept = chunk.moduleIds.filter((m) => m.startsWith(NODE_ONLY_PREFIX) || m === UNAVAILABLE);
        if (kept.length === 0) continue;
        const what = kept.map((m) => (m === UNAVAILABLE ? 'node-unavailable.ts' : m.slice(NODE_ONLY_PREFIX.length)));
        this.error(
          `${chunk.fileName} keeps code that needs Node built-ins a browser does not have: ${what.join(', ')}`,
        );
      }
    },
  };
}

/** Third-party packages the int3 packages use only on Node: the CLI's commander, plugin resolution's import-meta-resolve. */
const NODE_ONLY_PACKAGES = ['commander', 'import-meta-resolve'];

/**
 * The CLI's front door also exports `createProgram`, and the tracer loads plugins by Node's module
 * resolution; the playground uses neither. The CLI's modules (which only declare at import time) and
 * the Node-only packages are declared free of side effects, so the bundle keeps only what the
 * playground calls; the built-ins those packages import resolve to an empty marked module, which the
 * browser tests check is gone from the bundle.
 */
export function dropNodeOnlyCode(): Plugin {
  const cli = `${sep}packages${sep}cli${sep}`;
  const inNodeOnly = (id: string) => NODE_ONLY_PACKAGES.some((p) => id.includes(`${sep}node_modules${sep}${p}${sep}`));
  return {
    name: 'int3:drop-node-only-code',
    enforce: 'pre',
    async resolveId(source, importer, options) {
      if (importer === undefined) return null;
      if (source.startsWith('node:') && inNodeOnly(importer)) return UNAVAILABLE;
      const fromCli = importer.includes(cli) && source.startsWith('.');
      if (source !== '@int3/cli' && !fromCli && !NODE_ONLY_PACKAGES.includes(source)) return null;
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      return resolved === null ? null : { ...resolved, moduleSideEffects: false };
    },
  };
}

/**
 * iced-x86 1.21 is built with `wasm-pack --target nodejs`: it takes TextDecoder from `util` and reads
 * its `.wasm` with `fs.readFileSync` when loaded. In the browser the worker fetches the bytes first and
 * leaves them in `globalThis.__INT3_ICED_WASM__`; this transform makes the module read them there.
 */
export function icedX86ForBrowser(): Plugin {
  return {
    name: 'int3:iced-x86-browser',
    transform(code, id) {
      if (!id.includes('iced-x86') || !id.endsWith('iced_x86.js')) return null;
      const out = code
        .replace('const { TextDecoder, TextEncoder } = require(`util`);', '')
        .replace(
          /const path = require\('path'\)\.join\(__dirname, 'iced_x86_bg\.wasm'\);\s*const bytes = require\('fs'\)\.readFileSync\(path\);/,
          'const bytes = globalThis.__INT3_ICED_WASM__;',
        );
      if (out.includes("require('fs')") || out.includes('require(`util`)')) {
        this.error('iced-x86: the Node loader was not where this transform expects it (is it still 1.21?)');
      }
      return { code: out, map: null };
    },
  };
}

const IMAGE_MODULE = 'virtual:int3-image';

/**
 * `virtual:int3-image`: the files the browser's machine reads synchronously — the kernel image, the
 * workloads and the modules — as base64, keyed by their path under `packages/kernel/image`.
 */
export function kernelImageModule(): Plugin {
  return {
    name: 'int3:kernel-image',
    resolveId: (id) => (id === IMAGE_MODULE ? `\0${IMAGE_MODULE}` : null),
    load(id) {
      if (id !== `\0${IMAGE_MODULE}`) return null;
      const files: Record<string, string> = {};
      const add = (rel: string) => {
        const path = join(kernelImage, rel);
        this.addWatchFile(path);
        files[rel] = readFileSync(path).toString('base64');
      };
      add('vmlinux');
      for (const f of readdirSync(join(kernelImage, 'user', 'bin'))) add(`user/bin/${f}`);
      for (const f of readdirSync(join(kernelImage, 'modules'))) if (f.endsWith('.ko')) add(`modules/${f}`);
      for (const f of readdirSync(join(kernelImage, 'modules', 'kprobes'))) {
        if (f.endsWith('.ko')) add(`modules/kprobes/${f}`);
      }
      return `export default ${JSON.stringify(files)};`;
    },
  };
}

/** Every plugin the playground's worker bundle needs. */
export function playgroundPlugins(): Plugin[] {
  return [dropNodeOnlyCode(), nodeBuiltinShims(), icedX86ForBrowser(), kernelImageModule()];
}
