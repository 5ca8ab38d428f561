import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Interrupt } from '../runtime/interrupt.js';
import { tempDir } from '../temp-dir.fixture.js';
import { runInteractiveShell } from './run-interactive-shell.js';
import { ShellHistory } from './shell-history.js';

const UP = '\x1b[A';

/** One interactive session: types `keys`, then Ctrl-D; returns the lines the shell executed. */
async function session(keys: string[], history: ShellHistory): Promise<string[]> {
  const input = new PassThrough();
  const output = new PassThrough();
  output.resume();
  const executed: string[] = [];
  const done = runInteractiveShell({
    shell: { execute: async (line) => void executed.push(line) },
    fs: { ls: () => [] },
    interrupt: new Interrupt(),
    input,
    output,
    history,
  });
  for (const k of keys) {
    input.write(k);
    await new Promise((r) => setImmediate(r));
  }
  input.end();
  await done;
  return executed;
}

describe(runInteractiveShell, () => {
  it('should keep history across sessions in its file: up recalls the last session’s last line', async () => {
    const path = join(tempDir('int3-shell-'), 'int3', 'tracefs_history');
    const history = new ShellHistory(path);
    expect(await session(['cat trace\r', 'ls events\r'], history)).toEqual(['cat trace', 'ls events']);
    expect(readFileSync(path, 'utf8')).toBe('cat trace\nls events\n');
    expect(await session([UP, '\r', UP, UP, '\r'], history)).toEqual(['ls events', 'cat trace']);
  });
});
