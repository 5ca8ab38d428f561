import { describe, expect, it } from 'vitest';
import { completeShellLine, type ListableFs } from './complete-shell-line.js';

/** A tracefs with a root, `events/kprobes/myprobe/{enable,filter}` and the kprobes debugfs files. */
const TREE: Record<string, string[]> = {
  '.': ['kprobe_events', 'kprobe_profile', 'trace', 'trace_pipe', 'events'],
  'events/': ['enable', 'kprobes'],
  'events/kprobes/': ['enable', 'myprobe'],
  'events/kprobes/myprobe/': ['enable', 'filter'],
  '/sys/kernel/debug/kprobes/': ['list', 'enabled', 'blacklist'],
};

const fs: ListableFs = {
  ls(path: string) {
    const entries = TREE[path] ?? TREE[`${path}/`];
    if (!entries) throw new Error(`ENOTDIR ${path}`);
    return entries;
  },
};

describe(completeShellLine, () => {
  it('should complete the first word to a command', () => {
    expect(completeShellLine('ec', fs)).toEqual([['echo '], 'ec']);
    expect(completeShellLine('r', fs)).toEqual([['run ', 'rmmod '], 'r']);
  });

  it('should complete the word after run to a workload', () => {
    expect(completeShellLine('run mk', fs)).toEqual([['mkdir '], 'mk']);
  });

  it('should complete relative tracefs paths, directories with a slash', () => {
    expect(completeShellLine('cat kprobe_p', fs)).toEqual([['kprobe_profile'], 'kprobe_p']);
    expect(completeShellLine('cat tr', fs)).toEqual([['trace', 'trace_pipe'], 'tr']);
    expect(completeShellLine('echo 1 > events/kprobes/my', fs)).toEqual([
      ['events/kprobes/myprobe/'],
      'events/kprobes/my',
    ]);
    expect(completeShellLine('echo 1 > events/kprobes/myprobe/en', fs)).toEqual([
      ['events/kprobes/myprobe/enable'],
      'events/kprobes/myprobe/en',
    ]);
  });

  it('should complete an absolute path to a mount point, then inside it', () => {
    expect(completeShellLine('cat /sys/kernel/d', fs)).toEqual([['/sys/kernel/debug/kprobes/'], '/sys/kernel/d']);
    expect(completeShellLine('cat /sys/kernel/debug/kprobes/l', fs)).toEqual([
      ['/sys/kernel/debug/kprobes/list'],
      '/sys/kernel/debug/kprobes/l',
    ]);
  });

  it('should offer nothing under a missing directory', () => {
    expect(completeShellLine('cat nope/x', fs)).toEqual([[], 'nope/x']);
  });
});
