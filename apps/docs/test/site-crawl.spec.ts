import { existsSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { type Browser, chromium as playwright } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumArgs } from '../src/browser/find-chromium.js';
import { type StaticSite, serveStatic } from '../src/browser/static-server.js';
import { chromiumPath, skipBrowser } from './browser-env.js';
import { ensureTestSite, TEST_BASE } from './build-site.js';

/** What loading one page found. */
interface PageReport {
  readonly errors: string[];
  /** Internal links, as site paths (`guide/concepts.html`) with their `#fragment` if any. */
  readonly links: { readonly path: string; readonly id: string }[];
  readonly ids: Set<string>;
}

/** Tabs loading pages at once: more only makes them wait for the same two cores. */
const TABS = 3;

/** Every HTML file of the built site, as site paths. */
function htmlFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.html'))
    .map((f) => f.split(sep).join('/'));
}

describe.skipIf(skipBrowser)('the built site, loaded page by page in Chromium', () => {
  let dir: string;
  let site: StaticSite;
  let browser: Browser;
  const reports = new Map<string, PageReport>();

  beforeAll(async () => {
    const executablePath = chromiumPath();
    dir = ensureTestSite();
    site = await serveStatic(dir, TEST_BASE);
    browser = await playwright.launch({ executablePath, args: chromiumArgs() });
    // Every built page once, each loaded afresh (no client-side navigation), a few tabs at a time.
    const queue = htmlFiles(dir);
    const origin = new URL(site.url).origin;
    const loader = async () => {
      const tab = await browser.newPage();
      let errors: string[] = [];
      tab.on('console', (m) => {
        if (m.type() === 'error') errors.push(`console: ${m.text()}`);
      });
      tab.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
      tab.on('response', (r) => {
        if (r.status() >= 400) errors.push(`HTTP ${r.status()}: ${r.url()}`);
      });
      for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
        errors = [];
        await tab.goto(`${site.url}${path}`, { waitUntil: 'load' });
        const found = await tab.evaluate(() => ({
          hrefs: [...document.querySelectorAll('a[href]')].map((a) => (a as HTMLAnchorElement).href),
          ids: [...document.querySelectorAll('[id]')].map((e) => e.id),
        }));
        const links: { path: string; id: string }[] = [];
        for (const href of found.hrefs) {
          const u = new URL(href);
          if (u.origin !== origin) continue;
          // `#run=…` is the playground's state, not an anchor.
          const id = u.hash.startsWith('#run=') ? '' : decodeURIComponent(u.hash.slice(1));
          links.push({ path: decodeURIComponent(u.pathname), id });
        }
        reports.set(path, { errors, links, ids: new Set(found.ids) });
      }
      await tab.close();
    };
    await Promise.all(Array.from({ length: TABS }, loader));
  }, 1_800_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  /** The built page a site path names (`/int3/` is `index.html`), undefined outside the site. */
  const pageOf = (path: string) => {
    if (!path.startsWith(TEST_BASE)) return undefined;
    const rel = path.slice(TEST_BASE.length);
    return rel === '' || rel.endsWith('/') ? `${rel}index.html` : rel;
  };

  it('should reach every guide and reference page from the home page, and the API reference', () => {
    const reached = new Set(['index.html']);
    for (const todo = ['index.html']; todo.length > 0; ) {
      for (const link of reports.get(todo.pop()!)?.links ?? []) {
        const target = pageOf(link.path);
        if (target !== undefined && reports.has(target) && !reached.has(target)) {
          reached.add(target);
          todo.push(target);
        }
      }
    }
    for (const page of [
      'guide/getting-started.html',
      'guide/concepts.html',
      'guide/record-replay.html',
      'guide/plugins.html',
      'guide/modules.html',
      'guide/guest-kernel.html',
      'guide/int3-and-linux.html',
      'guide/performance.html',
      'playground.html',
      'reference/kprobe-events.html',
      'reference/event-log.html',
      'reference/cli.html',
    ]) {
      expect(reached).toContain(page);
    }
    expect([...reached].filter((p) => p.startsWith('api/')).length).toBeGreaterThan(20);
  });

  it('should load every page without a console error, a page error or a failed request', () => {
    expect(reports.size).toBe(htmlFiles(dir).length);
    const bad = [...reports].filter(([, r]) => r.errors.length > 0).map(([p, r]) => `${p}: ${r.errors.join('; ')}`);
    expect(bad).toEqual([]);
  });

  it('should have no broken internal link', () => {
    const broken: string[] = [];
    for (const [from, report] of reports) {
      for (const link of report.links) {
        const target = pageOf(link.path);
        const file = target === undefined ? undefined : join(dir, ...target.split('/'));
        if (file === undefined || relative(dir, file).startsWith('..') || !existsSync(file)) {
          broken.push(`${from} -> ${link.path}`);
        } else if (link.id !== '' && target?.endsWith('.html') && !reports.get(target)?.ids.has(link.id)) {
          broken.push(`${from} -> ${link.path}#${link.id}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});
