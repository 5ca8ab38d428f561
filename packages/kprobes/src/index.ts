export type { OptimizedDetour } from './core/arch.js';
export type { ArchSite } from './core/arch-site.js';
export type { BlacklistEntry } from './core/blacklist-entry.js';
export { kprobeHashBucket, kprobeListFlags } from './core/debugfs.js';
export { type Jprobe, type JprobeHostEntry, MAX_STACK_SIZE } from './core/jprobes.js';
export {
  type BreakHandler,
  type FaultHandler,
  type Kprobe,
  KprobeFlag,
  KprobeStatus,
  type PostHandler,
  type PreHandler,
} from './core/kprobe.js';
export type { KprobeEvent, KprobeEventAt, KprobeEventWhere } from './core/kprobe-event.js';
export { KPROBES_NOTIFIER_PRIORITY } from './core/kprobes-core.js';
export { KRETPROBE_MAX_DATA_SIZE, type Kretprobe, type KretprobeInstance } from './core/kretprobe.js';
export type { ProbeKind, ProbeSite, ProbeState } from './core/probe-site.js';
export { Errno, type ErrnoName, KprobeError } from './kprobe-error.js';
export { Kprobes } from './kprobes.js';
export type { KprobesConfig, KprobesDebugfs, KprobesOptimization } from './kprobes-views.js';
