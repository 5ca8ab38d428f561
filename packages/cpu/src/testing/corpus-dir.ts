import { fileURLToPath } from 'node:url';

/**
 * `packages/cpu/corpus`: the C corpus of the CPU's differential tests (kernel-style C: arithmetic,
 * bit tricks, control flow, hashing, sorting, memory), whose functions {@link CORPUS_FUNCTIONS} lists.
 * Shipped with the package, so another package's tests build it too (kprobes probes every function).
 */
export const CORPUS_DIR = fileURLToPath(new URL('../../corpus', import.meta.url));
