// The playground's figures for the README's Performance section: the size of what the browser loads
// for it (the worker's code and iced-x86's wasm, raw and gzip) and the time from page load to the first
// trace line in headless Chromium, median of 5 loads. Builds the site first (TypeDoc + VitePress).
// `node apps/docs/bench/playground.bench.mjs` (or `npm run bench`).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';

const docs = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(docs, 'test', '.out', 'bench-site');
const bin = (name) => join(docs, 'node_modules', '.bin', name);
for (const [tool, args] of [
  ['typedoc', []],
  ['vitepress', ['build', '--outDir', out]],
]) {
  const r = spawnSync(bin(tool), args, { cwd: docs, stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) process.exit(1);
}

const assets = join(out, 'assets');
// The worker's entry, its engine chunk (the int3 packages and the kernel image) and iced-x86's wasm.
const files = readdirSync(assets).filter((f) => /^(worker|engine)-.*\.js$|\.wasm$/.test(f));
let raw = 0;
let gz = 0;
for (const f of files) {
  const bytes = readFileSync(join(assets, f));
  raw += bytes.length;
  gz += gzipSync(bytes, { level: 9 }).length;
}
const kib = (n) => `${(n / 1024).toFixed(0)} KiB`;
console.log(`playground bundle (${files.length} files: worker, engine, wasm): ${kib(raw)} raw, ${kib(gz)} gzip`);

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm' };
const server = createServer((req, res) => {
  const path = new URL(req.url, 'http://x').pathname;
  const file = join(out, path.endsWith('/') ? `${path}index.html` : path);
  try {
    if (!statSync(file).isFile()) throw new Error();
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  } catch {
    res.writeHead(404).end();
  }
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${server.address().port}/playground.html`;
const executablePath =
  process.env.INT3_CHROMIUM || spawnSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).stdout.trim();
if (!executablePath) {
  console.log('playground page load → first trace line: skipped (no chromium; apt-get install chromium)');
  server.close();
  process.exit(0);
}
const browser = await chromium.launch({ executablePath, args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
const times = [];
for (let i = 0; i < 5; i++) {
  const page = await browser.newPage();
  const start = Date.now();
  await page.goto(url);
  await page.waitForFunction(
    () => document.querySelector('[data-testid=trace]')?.textContent?.includes('myprobe:'),
    null,
    {
      timeout: 120_000,
    },
  );
  times.push(Date.now() - start);
  await page.close();
}
await browser.close();
server.close();
times.sort((a, b) => a - b);
console.log(`playground page load → first trace line: ${times[2]} ms median of 5 (${times.join(', ')} ms)`);
