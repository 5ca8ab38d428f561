import { describe, expect, it } from 'vitest';
import { bootTraceFs } from '../../test/support/tracefs-machine.js';
import { listBpftraceProbes } from './list-probes.js';

describe(listBpftraceProbes, () => {
  it('should list the functions a glob matches as kprobe:NAME, sorted', () => {
    const { m } = bootTraceFs(1);
    const lines = listBpftraceProbes(m.kallsyms, 'kprobe:vfs_*').trimEnd().split('\n');
    expect(lines).toEqual(expect.arrayContaining(['kprobe:vfs_read', 'kprobe:vfs_write']));
    expect(lines).toEqual([...lines].sort());
    expect(listBpftraceProbes(m.kallsyms, 'vfs_read')).toBe('kprobe:vfs_read\n');
    expect(listBpftraceProbes(m.kallsyms, 'tracepoint:x:y')).toBe('');
  });
});
