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

/**
 * Resolves the Node built-ins imported by the int3 packages (and by iced-x86) to the playground's
 * browser modules in `playground/shims`: a virtual file system holding the kernel image, SHA-256 and
 * SHA-1 in JavaScript, POSIX paths. A built-in with no stand-in fails the build, so none is left in the
 * bundle.
 */
export function nodeBuiltinShims(): Plugin {
  return {
    name: 'int3:node-builtin-shims',
    enforce: 'pre',
    resolveId(source, importer) {
      const name = source.replace(/^node:/, '');
      const isBuiltin = source.startsWith('node:') || Object.hasOwn(SHIMS, name);
      if (!isBuiltin || importer === undefined) return null;
      const fromInt3 =
        !relative(repo, importer).startsWith('..') && !importer.startsWith(join(here, '..', '.vitepress'));
      if (!fromInt3 && !importer.includes(`${sep}iced-x86${sep}`)) return null;
      const shim = SHIMS[name];
      if (shim === undefined) this.error(`${source} (imported by ${importer}) has no browser stand-in`);
      return join(shims, shim);
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
      if (source.startsWith('node:') && inNodeOnly(importer)) return join(shims, 'node-unavailable.ts');
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
