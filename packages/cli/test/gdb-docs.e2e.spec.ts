// The docs' "Time travel with gdb" session, replayed with the real gdb: the page shows what gdb prints.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../src/temp-dir.fixture.js';
import { gdbSession, skipGdb } from './gdb-session.js';
import { ok, REPO_ROOT } from './int3.js';

const PAGE = join(REPO_ROOT, 'apps/docs/pages/guide/time-travel-gdb.md');

/** The fenced block after the page's "replayed by" comment. */
function sessionBlock(page: string): string {
  const at = page.indexOf('replayed by packages/cli/test/gdb-docs.e2e.spec.ts');
  const m = /```txt\n([\s\S]*?)```/.exec(page.slice(at));
  if (at < 0 || !m) throw new Error(`${PAGE}: no gdb session block`);
  return m[1];
}

/** gdb's `echo` text for a line (backslashes and quotes as gdb's echo reads them). */
const echo = (text: string) => `echo ${text.replaceAll('\\', '\\\\')}\\n`;

describe.skipIf(skipGdb)('the time-travel page', () => {
  it('should show what gdb prints for its session on a recorded cat /etc/motd', async () => {
    const block = sessionBlock(readFileSync(PAGE, 'utf8'));
    const commands = block
      .split('\n')
      .filter((l) => l.startsWith('(gdb) '))
      .map((l) => l.slice(6));
    expect(commands.length).toBeGreaterThan(5);
    const dir = tempDir('int3-gdb-docs-');
    const log = join(dir, 'cat.int3log');
    ok(['record', '-o', log, '--run', 'cat /etc/motd']);
    const r = await gdbSession(
      dir,
      log,
      [echo('@@'), ...commands.flatMap((c) => [echo(`(gdb) ${c}`), c]), echo('@@'), 'kill'],
      { debugInfo: true },
    );
    const shown = r.gdb.split('@@\n')[1];
    expect(shown).toBe(block);
  });
});
