// End-to-end tests: what came from the guest or a log reaches the terminal with its control
// characters escaped (issue 13 §5). They spawn the built binary (dist/).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeLogLine, logHeaderLine } from '@int3/kernel';
import { afterAll, describe, expect, it } from 'vitest';
import { int3 } from './int3.js';

const dir = mkdtempSync(join(tmpdir(), 'int3-escapes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An OSC that retitles the terminal, and a CSI that clears it. */
const ATTACK = '\u001b]0;PWNED\u0007\u001b[2J';
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

describe('terminal escapes', () => {
  it('should print a guest string with its controls as \\xNN, keeping printable UTF-8', () => {
    // No such file in the guest: cat fails (exit 1, said on stderr) after its open was traced.
    const r = int3(['trace', '-e', 'p:open do_sys_open filename=+0(%si):string', '--run', `cat 'a${ATTACK}é\u009b\\'`]);
    expect(r.stderr).toBe('int3: the run failed: workload "cat" (pid 1) exited with status 1\n');
    expect(r.status).toBe(1);
    const out = r.stdout;
    expect(out).toContain('filename="a\\x1b]0;PWNED\\x07\\x1b[2Jé\\xc2\\x9b\\\\"');
    expect(out).not.toMatch(CONTROL);
  });

  it('should escape a log field that reaches stderr', () => {
    const log = join(dir, 'forged.int3log');
    // A well-formed, complete log whose image is not the one given: its name reaches stderr.
    const config = { type: 'config', image: `vmlinux${ATTACK}`, imageSha256: 'a'.repeat(64), cpus: 2, quantum: 10000 };
    const end = { type: 'end', entries: 1, inputs: 0, hash: 'a'.repeat(64), stop: 'complete' };
    writeFileSync(log, logHeaderLine() + encodeLogLine({ ...config, panicOnOops: false }) + encodeLogLine(end));
    const r = int3(['replay', log]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('vmlinux\\x1b]0;PWNED\\x07\\x1b[2J');
    expect(r.stderr).not.toMatch(CONTROL);
  });
});
