import { describe, expect, it } from 'vitest';
import { traceFindCmdline } from './trace-find-cmdline.js';

describe(traceFindCmdline, () => {
  const lookup = (pid: number) => (pid === 42 ? 'a-name-longer-than-fifteen' : undefined);

  it.each<[number, string]>([
    [0, '<idle>'],
    [-1, '<XXX>'],
    [7, '<...>'],
    [42, 'a-name-longer-t'],
  ])('should name pid %i %j', (pid, expected) => {
    expect(traceFindCmdline(pid, lookup)).toBe(expected);
  });
});
