import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CliError } from '../cli-error.js';
import { fileSink } from './trace-sink.js';

const dir = mkdtempSync(join(tmpdir(), 'int3-sink-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe(fileSink, () => {
  it('should put the whole trace in place at close, never half of it (written atomically)', () => {
    const path = join(dir, 'trace.txt');
    const sink = fileSink(path);
    sink.write('a\n');
    expect(existsSync(path)).toBe(false);
    sink.write('b\n');
    sink.close();
    expect(readFileSync(path, 'utf8')).toBe('a\nb\n');
  });

  it('should refuse a path it cannot open at once, with a usage error naming it', () => {
    const path = join(dir, 'no/such/dir/trace.txt');
    expect(() => fileSink(path)).toThrow(CliError);
    expect(() => fileSink(path)).toThrow(`cannot write '${path}'`);
  });
});
