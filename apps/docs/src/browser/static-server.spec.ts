import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serveStatic } from './static-server.js';

describe(serveStatic, () => {
  it('should serve files under the base path, index.html for a directory, 404 for the rest', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'int3-static-'));
    mkdirSync(join(dir, 'guide'));
    writeFileSync(join(dir, 'index.html'), 'home');
    writeFileSync(join(dir, 'guide', 'a.html'), 'a');
    const site = await serveStatic(dir, '/int3/');
    try {
      const get = async (path: string) => {
        const r = await fetch(new URL(path, site.url));
        return `${r.status} ${await r.text()}`;
      };
      expect(await get('/int3/')).toBe('200 home');
      expect(await get('/int3/guide/a.html')).toBe('200 a');
      expect((await get('/int3/guide/b.html')).slice(0, 3)).toBe('404');
      expect((await get('/guide/a.html')).slice(0, 3)).toBe('404');
      expect((await get('/int3/%2e%2e/%2e%2e/etc/passwd')).slice(0, 3)).toBe('404');
    } finally {
      await site.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
