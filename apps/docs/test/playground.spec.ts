import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTracedSession, hitSteps, type MechanismEvent } from '@int3/cli';
import { readSampleImage, SAMPLE_IMAGE_PATH } from '@int3/kernel';
import { type Browser, type Page, chromium as playwright } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumArgs } from '../src/browser/find-chromium.js';
import { type StaticSite, serveStatic } from '../src/browser/static-server.js';
import { chromiumPath, skipBrowser } from './browser-env.js';
import { DOCS_DIR, ensureTestSite, TEST_BASE } from './build-site.js';

const CLI = join(DOCS_DIR, '..', '..', 'packages', 'cli', 'dist', 'bin.js');
/** Where `insmod modules/kprobes/kprobe_example.ko` finds the seed modules on the host, as in the page. */
const IMAGE_DIR = join(DOCS_DIR, '..', '..', 'packages', 'kernel', 'image');
const DEFINITION = 'p:myprobe do_sys_open filename=+0(%si):string';
const SCREENSHOT = join(DOCS_DIR, 'test', '.out', 'playground.png');

/** What `int3 trace` prints for the same inputs, on stdout and stderr. */
function cli(...args: string[]): { stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { stdout: r.stdout, stderr: r.stderr };
}

/**
 * What `int3 tracefs` prints for `lines` after the inputs of the page's default run (the definition
 * appended and enabled, `cat /etc/motd`, its trace read), run where the seed modules are (`insmod
 * modules/…` as in the page): the prefix's own output cut off, as a terminal would show the lines.
 */
function tracefsAfterDefaultRun(lines: readonly string[]): string {
  const prefix = [
    `echo '${DEFINITION}' >> kprobe_events`,
    'echo 1 > events/enable',
    'run cat /etc/motd',
    'cat trace_pipe',
  ];
  const run = (script: readonly string[]) =>
    spawnSync(process.execPath, [CLI, 'tracefs'], {
      encoding: 'utf8',
      cwd: IMAGE_DIR,
      input: `${script.join('\n')}\n`,
    });
  const before = run(prefix);
  const after = run([...prefix, ...lines]);
  expect(after.stderr).toBe('');
  expect(after.stdout.startsWith(before.stdout)).toBe(true);
  return after.stdout.slice(before.stdout.length);
}

/** Types `lines` in the page's shell, one after another; returns what the shell shows for them. */
async function typeInShell(page: Page, lines: readonly string[]): Promise<string> {
  const before = await textOf(page, 'shell');
  for (const line of lines) {
    const prompts = ((await textOf(page, 'shell')).match(/^tracefs# /gm) ?? []).length;
    await page.fill('[data-testid=shell-input]', line);
    await page.press('[data-testid=shell-input]', 'Enter');
    await page.waitForFunction(
      (n) => (document.querySelector('[data-testid=shell]')?.textContent?.match(/^tracefs# /gm) ?? []).length > n,
      prompts,
    );
    await page.waitForSelector('[data-testid=shell-input]:not([disabled])');
  }
  return (await textOf(page, 'shell')).slice(before.length);
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

  it('should run the guest through the block compiler in the browser, with the trace the CLI prints', async () => {
    // spin's loop is hot enough to compile (a block head is compiled after 1,024 visits; cat alone
    // runs interpreted).
    await runForm(page, { definitions: DEFINITION, workloads: 'cat /etc/motd\nspin 200000' });
    // The status line counts what the worker's CPUs retired in compiled code (new Function in a
    // module worker); the trace it printed is the CLI's, byte for byte.
    const status = await textOf(page, 'status');
    const counts = /([\d,]+) guest instructions, ([\d,]+) of them in compiled code/.exec(status);
    expect(counts, status).not.toBeNull();
    const [all, compiled] = [counts![1], counts![2]].map((n) => Number(n.replaceAll(',', '')));
    expect(compiled).toBeGreaterThan(0);
    expect(compiled).toBeLessThanOrEqual(all);
    const expected = cli('trace', '-e', DEFINITION, '--run', 'cat /etc/motd', '--run', 'spin 200000').stdout;
    expect(await textOf(page, 'trace')).toBe(expected);
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

  /** Clicks Replay and waits until that replay is shown. */
  async function replayOnce(p: Page): Promise<void> {
    const done = Number(await p.locator('[data-testid=replay-block]').getAttribute('data-replays'));
    await p.click('[data-testid=replay]');
    await p.waitForSelector(`[data-testid=replay-block][data-replays="${done + 1}"]`, { timeout: 240_000 });
  }

  /** A page of its own, on the default state (the other tests' shell lines are in the shared page's URL). */
  async function freshPage(): Promise<Page> {
    const p = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    p.on('pageerror', (e) => errors.push(e.message));
    await p.goto(`${site.url}playground.html`);
    await p.waitForSelector('[data-testid=trace]', { timeout: 180_000 });
    await p.waitForSelector('[data-testid=run]:not([disabled])', { timeout: 180_000 });
    return p;
  }

  it('should replay a log recorded by the CLI as int3 replay does, byte for byte, with probes added after the fact', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'int3-docs-replay-'));
    try {
      const log = join(dir, 'run.int3log');
      const recorded = cli('record', '-o', log, '-e', DEFINITION, '--run', 'cat /etc/motd', '--run', 'mkdir /tmp/x');
      expect(recorded.stderr).toBe('');
      const replayIn = async (fields: { definitions?: string; triggers?: string }) => {
        await page.setInputFiles('[data-testid=replay-file]', log);
        await page.fill('[data-testid=replay-definitions]', fields.definitions ?? '');
        await page.fill('[data-testid=replay-triggers]', fields.triggers ?? '');
        await page.fill('[data-testid=budget]', '50');
        await replayOnce(page);
        const err =
          (await page.locator('[data-testid=replay-errors]').count()) > 0 ? await textOf(page, 'replay-errors') : '';
        return { stdout: await textOf(page, 'replay-output'), stderr: err };
      };
      const plain = cli('replay', log);
      expect(plain.stdout).toContain('filename="/etc/motd"');
      expect(await replayIn({})).toEqual(plain);
      const added = cli('replay', log, '-e', 'p:mk sys_mkdir', '--trigger', 'mk=hist:keys=common_pid');
      expect(added.stdout).toContain('mk: (sys_mkdir+0x0/0x30)');
      expect(added.stdout).toContain('# event histogram');
      expect(await replayIn({ definitions: 'p:mk sys_mkdir', triggers: 'mk=hist:keys=common_pid' })).toEqual(added);
      expect(await textOf(page, 'replay-command')).toBe(
        "int3 replay run.int3log -e 'p:mk sys_mkdir' --trigger 'mk=hist:keys=common_pid'",
      );
      const refused = cli('replay', log, '-e', 'p vfs_read ^$retval');
      expect(refused.stderr).toContain('Invalid fetch argument');
      expect(await replayIn({ definitions: 'p vfs_read ^$retval' })).toEqual(refused);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);

  it('should stop a replay at the instruction budget, as a live run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'int3-docs-replay-'));
    try {
      const log = join(dir, 'spin.int3log');
      expect(cli('record', '-o', log, '--run', 'spin 20000000').stderr).toBe('');
      await page.setInputFiles('[data-testid=replay-file]', log);
      await page.fill('[data-testid=replay-definitions]', '');
      await page.fill('[data-testid=replay-triggers]', '');
      await page.fill('[data-testid=budget]', '1');
      await replayOnce(page);
      expect(await textOf(page, 'replay-errors')).toContain(
        'stopped by the instruction budget (1,000,000 instructions)',
      );
      expect(await textOf(page, 'status')).toContain('exit status 130');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);

  it('should show one hit step by step as the demo tells it, linked to the probe and the slot in the disassembly', async () => {
    const p = await freshPage();
    await p.uncheck('[data-testid=optimize]');
    await runForm(p, { definitions: DEFINITION, workloads: 'cat /etc/motd' });
    // The same inputs in Node, told by the same function as `int3 demo`.
    const t = createTracedSession({ bytes: readSampleImage(), name: SAMPLE_IMAGE_PATH.split('/').pop()! }, 2);
    const timeline: MechanismEvent[] = [];
    t.kprobes.events$.subscribe((e) => timeline.push(e));
    t.session.machine.streams.traps$.subscribe((e) => timeline.push(e));
    t.fs.write('/proc/sys/debug/kprobes-optimization', '0\n');
    t.fs.write('kprobe_events', `${DEFINITION}\n`, { append: true });
    t.fs.write('events/enable', '1\n');
    t.session.runWorkloads([['cat', '/etc/motd']]);
    const sym = (a: bigint) => t.session.machine.kallsyms.format(a);
    const expected = hitSteps(timeline, 0, sym, (e) => e.type === 'kprobe:hit')!.map((s) => s.line);
    expect(expected[0]).toBe('  interruption 1: #BP at do_sys_open+0x1/0x40');
    expect(expected).toContain('      kprobe:hit: do_sys_open+0x0 (int3, the copy single-stepped)');
    const shown = await p.locator('[data-testid=hit-steps] > span').allTextContents();
    expect(shown).toEqual(expected);
    expect(await textOf(p, 'hit-heading')).toBe('the first hit of do_sys_open+0x0, on CPU 0: 2 interruptions');
    // The probe's row: do_sys_open's first instruction, marked; the slot's row: its copy.
    const open = t.session.machine.kallsyms.lookupName('do_sys_open')!.address.toString(16);
    const probeRow = p.locator('[data-testid=probe-row]');
    expect(await probeRow.getAttribute('id')).toBe(`insn-${open}`);
    expect(await probeRow.textContent()).toMatch(
      /push\s+%rbp\s+<- kprobe \(armed: int3 in place; copy at slot 0x[0-9a-f]+\)/,
    );
    const slot = /at slot 0x([0-9a-f]+)/.exec(expected.find((l) => l.includes('single-step-begun'))!)![1];
    const slotRow = p.locator('[data-testid=slot-row]');
    expect(await slotRow.getAttribute('id')).toBe(`insn-${slot}`);
    expect(await slotRow.textContent()).toContain('push');
    expect(await textOf(p, 'hit-slot')).not.toMatch(/add\s+%al,\(%rax\)|\(bad\)/);
    // Each step links to the rows it names; following one marks its row.
    expect(await p.locator(`[data-testid=hit-steps] button[data-address="${open}"]`).count()).toBeGreaterThan(0);
    await p.click(`[data-testid=hit-steps] button[data-address="${slot}"]`);
    expect(await p.locator(`#insn-${slot}`).getAttribute('class')).toContain('focused');
    expect(new URL(p.url()).hash).toMatch(/^#run=/);
    await p.close();
  }, 300_000);

  it("should load a seed module from the page and show its handlers' printk lines, as int3 tracefs does", async () => {
    const p = await freshPage();
    await p.selectOption('[data-testid=module]', 'modules/kprobes/kprobe_example.ko');
    const before = await textOf(p, 'shell');
    await p.click('[data-testid=insmod]');
    await p.waitForFunction(() =>
      document.querySelector('[data-testid=shell]')?.textContent?.includes('tracefs# insmod'),
    );
    await p.waitForSelector('[data-testid=shell-input]:not([disabled])');
    await typeInShell(p, ['run dd', 'dmesg']);
    const shown = (await textOf(p, 'shell')).slice(before.length);
    const lines = ['insmod modules/kprobes/kprobe_example.ko', 'run dd', 'dmesg'];
    const expected = tracefsAfterDefaultRun(lines);
    expect(expected).toContain('pre_handler: p->addr=0x');
    expect(shown.match(/^tracefs# .*$/gm)).toEqual(lines.map((l) => `tracefs# ${l}`));
    expect(shown.replace(/^tracefs# .*\n/gm, '')).toBe(expected);
    await p.close();
  }, 300_000);

  it('should take event triggers in the shell and show the hist file, as int3 tracefs does', async () => {
    const p = await freshPage();
    const lines = [
      "echo 'hist:keys=common_pid' > events/kprobes/myprobe/trigger",
      'run cat /etc/motd',
      'cat events/kprobes/myprobe/trigger',
      'cat events/kprobes/myprobe/hist',
    ];
    const shown = await typeInShell(p, lines);
    const expected = tracefsAfterDefaultRun(lines);
    expect(expected).toMatch(/# event histogram[\s\S]*\{ common_pid: +\d+ \} hitcount: +1\n/);
    expect(shown.replace(/^tracefs# .*\n/gm, '')).toBe(expected);
    expect(shown.match(/^tracefs# .*$/gm)).toEqual(lines.map((l) => `tracefs# ${l}`));
    await p.close();
  }, 300_000);
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
