import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AtomicOutput } from './atomic-output.js';

const dir = mkdtempSync(join(tmpdir(), 'int3-out-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe(AtomicOutput, () => {
  it('should put the file in place only at commit, leaving no temporary file', () => {
    const path = join(dir, 'out.txt');
    writeFileSync(path, 'old');
    const out = AtomicOutput.open(path);
    out.write('new ');
    out.write('text');
    expect(readFileSync(path, 'utf8')).toBe('old');
    out.commit();
    expect(readFileSync(path, 'utf8')).toBe('new text');
    expect(readdirSync(dir)).toEqual(['out.txt']);
  });

  it('should leave the old file as it was when aborted', () => {
    const path = join(dir, 'kept.txt');
    writeFileSync(path, 'old');
    const out = AtomicOutput.open(path);
    out.write('half');
    out.abort();
    expect(readFileSync(path, 'utf8')).toBe('old');
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('should refuse at open a path in a missing directory or naming a directory', () => {
    expect(() => AtomicOutput.open('/nonexistent/x', 'trace')).toThrow(
      "cannot write '/nonexistent/x': no such directory '/nonexistent'",
    );
    expect(() => AtomicOutput.open(dir)).toThrow(`cannot write '${dir}': it is a directory`);
    expect(existsSync('/nonexistent')).toBe(false);
  });

  it('should write a device such as /dev/null in place', () => {
    const out = AtomicOutput.open('/dev/null');
    out.write('x');
    out.commit();
    expect(existsSync('/dev/null')).toBe(true);
  });
});
