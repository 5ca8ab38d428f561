import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../temp-dir.fixture.js';
import { HISTORY_SIZE, historyPath, ShellHistory } from './shell-history.js';

describe(historyPath, () => {
  it('should use XDG_STATE_HOME, else ~/.local/state, else nothing', () => {
    expect(historyPath({ XDG_STATE_HOME: '/s', HOME: '/h' })).toBe('/s/int3/tracefs_history');
    expect(historyPath({ XDG_STATE_HOME: 'relative', HOME: '/h' })).toBe('/h/.local/state/int3/tracefs_history');
    expect(historyPath({ HOME: '/h' })).toBe('/h/.local/state/int3/tracefs_history');
    expect(historyPath({})).toBeUndefined();
  });
});

describe(ShellHistory, () => {
  it('should save newest-first history oldest first, creating the directory, and load it back', () => {
    const path = join(tempDir('int3-hist-'), 'state', 'int3', 'tracefs_history');
    const history = new ShellHistory(path);
    expect(history.load()).toEqual([]);
    history.save(['cat trace', 'echo 1 > events/enable', '']);
    expect(readFileSync(path, 'utf8')).toBe('echo 1 > events/enable\ncat trace\n');
    expect(history.load()).toEqual(['cat trace', 'echo 1 > events/enable']);
  });

  it(`should keep at most ${HISTORY_SIZE} lines, the newest, on save and on load`, () => {
    const path = join(tempDir('int3-hist-'), 'h');
    const history = new ShellHistory(path);
    const many = Array.from({ length: HISTORY_SIZE + 50 }, (_, i) => `cat ${HISTORY_SIZE + 49 - i}`);
    history.save(many);
    const saved = readFileSync(path, 'utf8').trimEnd().split('\n');
    expect(saved).toHaveLength(HISTORY_SIZE);
    expect(saved.at(-1)).toBe(`cat ${HISTORY_SIZE + 49}`);
    writeFileSync(path, `${Array.from({ length: HISTORY_SIZE + 5 }, (_, i) => `ls ${i}`).join('\n')}\n`);
    const loaded = history.load();
    expect(loaded).toHaveLength(HISTORY_SIZE);
    expect(loaded[0]).toBe(`ls ${HISTORY_SIZE + 4}`);
  });

  it('should ignore a history it cannot write', () => {
    const file = join(tempDir('int3-hist-'), 'file');
    writeFileSync(file, '');
    expect(() => new ShellHistory(join(file, 'below', 'h')).save(['ls'])).not.toThrow();
  });
});
