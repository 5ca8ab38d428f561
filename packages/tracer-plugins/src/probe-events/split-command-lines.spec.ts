import { describe, expect, it } from 'vitest';
import { argvSplit, splitCommandLines } from './split-command-lines.js';

describe(splitCommandLines, () => {
  it('should split lines and drop comments', () => {
    expect(splitCommandLines('p vfs_read # hi\n\n# all\nr do_exit')).toEqual({
      lines: ['p vfs_read ', '', '', 'r do_exit'],
      tooLong: false,
    });
  });
  it('should stop at a line of more than 4094 characters, keeping the lines before it', () => {
    const long = `p vfs_read ${'x'.repeat(4083)}`;
    expect(splitCommandLines(`p a\n${long}\n`)).toEqual({ lines: ['p a', long], tooLong: false });
    expect(splitCommandLines(`p a\n${long}y\np b`)).toEqual({ lines: ['p a'], tooLong: true });
  });
});

describe(argvSplit, () => {
  it('should split on whitespace runs', () => {
    expect(argvSplit(' \tp:a  vfs_read\t x=%ax \r')).toEqual(['p:a', 'vfs_read', 'x=%ax']);
  });
});
