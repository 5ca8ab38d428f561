import { describe, expect, it } from 'vitest';
import { bpftraceAttachesProbes } from './attaches-probes.js';

describe(bpftraceAttachesProbes, () => {
  it('should say whether a program needs a workload to run', () => {
    expect(bpftraceAttachesProbes('begin { 1 } END { 2 }')).toBe(false);
    expect(bpftraceAttachesProbes('begin { 1 } kprobe:vfs_read { 2 }')).toBe(true);
    expect(bpftraceAttachesProbes('interval:s:1 { exit(); }')).toBe(true);
    expect(bpftraceAttachesProbes('begin { ')).toBe(true);
  });
});
