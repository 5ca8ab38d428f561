import { type Browser, chromium as playwright } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumArgs } from '../src/browser/find-chromium.js';
import { type StaticSite, serveStatic } from '../src/browser/static-server.js';
import { chromiumPath, skipBrowser } from './browser-env.js';
import { ensureTestSite, TEST_BASE } from './build-site.js';

/** What one page of the crawl found. */
interface PageReport {
  readonly url: string;
  readonly status: number;
  readonly errors: string[];
  readonly links: string[];
}

describe.skipIf(skipBrowser)('the built site, crawled in Chromium', () => {
  let site: StaticSite;
  let browser: Browser;
  const reports = new Map<string, PageReport>();
  const brokenAnchors: string[] = [];

  beforeAll(async () => {
    const executablePath = chromiumPath();
    site = await serveStatic(ensureTestSite(), TEST_BASE);
    browser = await playwright.launch({ executablePath, args: chromiumArgs() });
    const origin = new URL(site.url).origin;
    const queue = [site.url];
    const seen = new Set(queue);
    const anchors: { from: string; to: string; id: string }[] = [];
    let busy = 0;
    // Four tabs crawl at once; each page is loaded afresh (no client-side navigation).
    const crawler = async () => {
      const tab = await browser.newPage();
      let errors: string[] = [];
      tab.on('console', (m) => {
        if (m.type() === 'error') errors.push(`console: ${m.text()}`);
      });
      tab.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
      tab.on('response', (r) => {
        if (r.status() >= 400) errors.push(`HTTP ${r.status()}: ${r.url()}`);
      });
      for (;;) {
        const url = queue.shift();
        if (url === undefined) {
          // Another tab may still find links: wait for it, stop when none is busy.
          if (busy === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
          continue;
        }
        busy++;
        errors = [];
        const response = await tab.goto(url, { waitUntil: 'load' });
        const hrefs = await tab.$$eval('a[href]', (as) => as.map((a) => (a as HTMLAnchorElement).href));
        const links: string[] = [];
        for (const href of hrefs) {
          const u = new URL(href);
          if (u.origin !== origin || !u.pathname.startsWith(TEST_BASE)) continue;
          const target = `${u.origin}${u.pathname}`;
          links.push(target);
          // `#run=…` is the playground's state, not an anchor.
          if (u.hash.length > 1 && !u.hash.startsWith('#run=')) {
            anchors.push({ from: url, to: target, id: decodeURIComponent(u.hash.slice(1)) });
          }
          if (!seen.has(target)) {
            seen.add(target);
            queue.push(target);
          }
        }
        reports.set(url, { url, status: response?.status() ?? 0, errors, links });
        busy--;
      }
      await tab.close();
    };
    await Promise.all([crawler(), crawler(), crawler(), crawler()]);
    const page = await browser.newPage();
    // Every #fragment must name an element of the page it points to.
    const ids = new Map<string, Set<string>>();
    for (const a of anchors) {
      if (!ids.has(a.to) && reports.get(a.to)?.status === 200) {
        await page.goto(a.to, { waitUntil: 'load' });
        ids.set(a.to, new Set(await page.$$eval('[id]', (els) => els.map((e) => e.id))));
      }
      if (!ids.get(a.to)?.has(a.id)) brokenAnchors.push(`${a.from} -> ${a.to}#${a.id}`);
    }
    await page.close();
  }, 1_800_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  it('should reach every guide and reference page from the home page, and the API reference', () => {
    const paths = [...reports.keys()].map((u) => new URL(u).pathname.slice(TEST_BASE.length));
    for (const page of [
      'guide/getting-started.html',
      'guide/concepts.html',
      'guide/record-replay.html',
      'guide/plugins.html',
      'guide/modules.html',
      'guide/guest-kernel.html',
      'guide/int3-and-linux.html',
      'guide/performance.html',
      'reference/kprobe-events.html',
      'reference/event-log.html',
      'reference/cli.html',
    ]) {
      expect(paths).toContain(page);
    }
    expect(paths.filter((p) => p.startsWith('api/')).length).toBeGreaterThan(20);
  });

  it('should load every page without a console error, a page error or a failed request', () => {
    const bad = [...reports.values()].filter((r) => r.errors.length > 0).map((r) => `${r.url}: ${r.errors.join('; ')}`);
    expect(bad).toEqual([]);
  });

  it('should have no broken internal link', () => {
    const broken = [...reports.values()].filter((r) => r.status !== 200).map((r) => `${r.url}: HTTP ${r.status}`);
    expect(broken).toEqual([]);
    expect(brokenAnchors).toEqual([]);
  });
});
