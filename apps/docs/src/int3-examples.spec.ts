import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatTranscript, runExampleBlock, splitCommands } from './int3-examples.js';

/** A stand-in CLI: prints its arguments, fails on `bad` (in a directory of its own, removed after). */
const dir = mkdtempSync(join(tmpdir(), 'int3-examples-'));
const bin = join(dir, 'fake-cli.mjs');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(
  bin,
  "const a = process.argv.slice(2); if (a[0] === 'bad') { console.error('int3: bad'); process.exit(2); } console.log(a.join(' '));\n",
);

describe(splitCommands, () => {
  it('should start a command at each "$ " and keep the lines after it (a heredoc) with it', () => {
    expect(splitCommands("$ int3 a\n$ int3 tracefs <<'EOF'\ncat trace\nEOF\n")).toEqual([
      'int3 a',
      "int3 tracefs <<'EOF'\ncat trace\nEOF",
    ]);
    expect(() => splitCommands('int3 a\n')).toThrow("must start with '$ '");
  });
});

describe(runExampleBlock, () => {
  it('should run each command with int3 on PATH, in one directory, and keep stderr with stdout', () => {
    const runs = runExampleBlock("$ int3 trace -e 'p:x y'\n$ echo hi > f && cat f\n", false, { bin });
    expect(formatTranscript(runs)).toBe("$ int3 trace -e 'p:x y'\ntrace -e p:x y\n$ echo hi > f && cat f\nhi\n");
  });

  it('should stop the build at a failing command unless the block is marked fails', () => {
    expect(() => runExampleBlock('$ int3 bad\n', false, { bin })).toThrow(/'int3 bad' exited 2:\nint3: bad/);
    expect(runExampleBlock('$ int3 bad\n', true, { bin })).toEqual([
      { command: 'int3 bad', output: 'int3: bad\n', status: 2 },
    ]);
  });

  it('should say so when the CLI is not built', () => {
    expect(() => runExampleBlock('$ int3 a\n', false, { bin: '/no/such/bin.js' })).toThrow('the CLI is not built');
  });
});
