export type { FieldDescriptor, FieldKind, FormatContext, TraceEventType } from './events/trace-event-type.js';
export { DEBUGFS_KPROBES, TRACEFS_ROOT, TraceFs, type TraceFsWriteOptions } from './tracefs/trace-fs.js';
export { TraceFsErrno, type TraceFsErrnoName, TraceFsError } from './tracefs/trace-fs-error.js';
