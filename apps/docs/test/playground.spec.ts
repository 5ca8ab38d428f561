import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type Page, chromium as playwright } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumArgs } from '../src/browser/find-chromium.js';
import { type StaticSite, serveStatic } from '../src/browser/static-server.js';
import { chromiumPath, skipBrowser } from './browser-env.js';
import { DOCS_DIR, ensureTestSite, TEST_BASE } from './build-site.js';

const CLI = join(DOCS_DIR, '..', '..', 'packages', 'cli', 'dist', 'bin.js');
const DEFINITION = 'p:myprobe do_sys_open filename=+0(%si):string';
const SCREENSHOT = join(DOCS_DIR, 'test', '.out', 'playground.png');

/** What `int3 trace` prints for the same inputs, on stdout and stderr. */
function cli(...args: string[]): { stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { stdout: r.stdout, stderr: r.stderr };
}

async function runForm(page: Page, fields: { definitions: string; workloads: string; budget?: string }) {
  await page.fill('[data-testid=definitions]', fields.definitions);
  await page.fill('[data-testid=workloads]', fields.workloads);
  if (fields.budget !== undefined) await page.fill('[data-testid=budget]', fields.budget);
  await page.waitForSelector('[data-testid=run]:not([disabled])', { timeout: 120_000 });
  await page.click('[data-testid=run]');
  await page.waitForSelector('[data-testid=run]:not([disabled])', { timeout: 120_000 });
}

const textOf = async (page: Page, id: string) => (await page.locator(`[data-testid=${id}]`).textContent()) ?? '';

describe.skipIf(skipBrowser)('the playground, in Chromium', () => {
  let site: StaticSite;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    site = await serveStatic(ensureTestSite(), TEST_BASE);
    browser = await playwright.launch({ executablePath: chromiumPath(), args: chromiumArgs() });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${site.url}playground.html`);
    // The first run (the default state) ends when the Run button is enabled again.
    await page.waitForSelector('[data-testid=run]:not([disabled])', { timeout: 180_000 });
  }, 1_800_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  it('should boot the sample kernel and print the trace line the CLI prints for the same inputs', async () => {
    await runForm(page, { definitions: DEFINITION, workloads: 'cat /etc/motd' });
    const expected = cli('trace', '-e', DEFINITION, '--run', 'cat /etc/motd').stdout;
    expect(expected).toContain('myprobe: (do_sys_open+0x0/0x40) filename="/etc/motd"');
    expect(await textOf(page, 'trace')).toBe(expected);
    expect(await textOf(page, 'trace-table')).toContain('/etc/motd');
    expect(await textOf(page, 'list')).toContain('do_sys_open+0x0');
    expect(await textOf(page, 'profile')).toMatch(/myprobe\s+1\s+0/);
    mkdirSync(join(DOCS_DIR, 'test', '.out'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(errors).toEqual([]);
  });

  it('should reproduce the run byte for byte from its shared link', async () => {
    const link = await page.locator('[data-testid=link]').getAttribute('href');
    expect(link).toContain('#run=');
    const trace = await textOf(page, 'trace');
    const list = await textOf(page, 'list');
    const other = await browser.newPage();
    await other.goto(link!);
    await other.waitForSelector('[data-testid=trace]', { timeout: 180_000 });
    await other.waitForSelector('[data-testid=run]:not([disabled])', { timeout: 180_000 });
    expect(await textOf(other, 'trace')).toBe(trace);
    expect(await textOf(other, 'list')).toBe(list);
    expect(await other.inputValue('[data-testid=definitions]')).toBe(DEFINITION);
    await other.close();
  });

  it('should download the run as an event log that int3 replay reproduces byte for byte', async () => {
    await runForm(page, { definitions: DEFINITION, workloads: 'cat /etc/motd\nmkdir /tmp/x', budget: '50' });
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=download-log]')]);
    const file = join(DOCS_DIR, 'test', '.out', 'playground.int3log');
    await download.saveAs(file);
    const replayed = cli('replay', file);
    expect(replayed.stderr).toBe('');
    expect(replayed.stdout).toBe(await textOf(page, 'trace'));
    const added = cli('replay', file, '-e', 'p:mk sys_mkdir');
    expect(added.stdout).toContain('mk: (sys_mkdir+0x0/0x30)');
  });

  it("should show the kernel's error_log lines with the caret for a bad definition", async () => {
    await runForm(page, { definitions: 'p vfs_read ^$retval', workloads: 'hello' });
    const caret = cli('trace', '-e', 'p vfs_read ^$retval').stderr.trimEnd().split('\n').slice(-2).join('\n');
    expect(caret).toMatch(/Command: p vfs_read \^\$retval\n\s+\^$/);
    const shown = await textOf(page, 'errors');
    expect(shown).toContain('trace_kprobe: error: Invalid fetch argument');
    expect(shown).toContain(caret);
  });

  it('should stop a runaway guest at the instruction budget, with a message', async () => {
    await runForm(page, { definitions: DEFINITION, workloads: 'spin 100000000', budget: '2' });
    expect(await textOf(page, 'errors')).toContain('stopped by the instruction budget (2,000,000 instructions)');
  });

  it('should run tracefs shell lines on the machine, as int3 tracefs does', async () => {
    await runForm(page, { definitions: DEFINITION, workloads: 'cat /etc/motd', budget: '50' });
    await page.fill('[data-testid=shell-input]', 'cat kprobe_events');
    await page.press('[data-testid=shell-input]', 'Enter');
    await page.waitForFunction(() => document.querySelector('[data-testid=shell]')?.textContent?.includes('myprobe'));
    const r = spawnSync(process.execPath, [CLI, 'tracefs'], {
      encoding: 'utf8',
      input: `echo '${DEFINITION}' >> kprobe_events\ncat kprobe_events\n`,
    });
    expect(r.stdout).toContain('myprobe');
    expect(await textOf(page, 'shell')).toBe(`tracefs# cat kprobe_events\n${r.stdout}`);
  });
});

describe('the playground bundle', () => {
  it.skipIf(skipBrowser)(
    'should leave no Node built-in in the browser code',
    () => {
      const assets = join(ensureTestSite(), 'assets');
      const js = readdirSync(assets).filter((f) => f.endsWith('.js'));
      const worker = js.filter(
        (f) => readFileSync(join(assets, f), 'utf8').includes('do_sys_open') || f.startsWith('worker'),
      );
      expect(worker.length).toBeGreaterThan(0);
      for (const f of js) {
        const code = readFileSync(join(assets, f), 'utf8');
        expect(code, f).not.toMatch(/["'`]node:[a-z]+["'`]|require\(["'`](fs|path|util|crypto)["'`]\)/);
        expect(code, f).not.toContain('INT3_NODE_UNAVAILABLE');
      }
    },
    1_800_000,
  );
});
