import { readFile, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
};

/** A static site served on localhost under a base path, as a static host (GitHub Pages) would. */
export interface StaticSite {
  /** The site's root URL, ending in the base path (`http://127.0.0.1:PORT/int3/`). */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves `dir` under `base` on a free localhost port: `/base/x.html` is `dir/x.html`, a path ending in
 * `/` is its `index.html`, anything else (or outside `base`) is 404 — so a broken link shows as one.
 *
 * @example
 * const site = await serveStatic('site', '/int3/'); await fetch(site.url); await site.close();
 */
export async function serveStatic(dir: string, base: string): Promise<StaticSite> {
  const root = normalize(dir);
  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
      let file: string | undefined;
      if (path.startsWith(base)) {
        const rel = path.slice(base.length);
        const candidate = normalize(join(root, rel.endsWith('/') || rel === '' ? `${rel}index.html` : rel));
        if (candidate === root || candidate.startsWith(root + sep)) file = candidate;
      }
      const found = file !== undefined && (await stat(file).catch(() => undefined))?.isFile();
      if (!found || file === undefined) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end(`not found: ${path}`);
        return;
      }
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
      res.end(await readFile(file));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${base}`,
    close: () => new Promise((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}
