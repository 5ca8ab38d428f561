export type { ErrnoName } from './kprobe-error.js';
export { Errno, KprobeError } from './kprobe-error.js';
