import {
  arrayOf,
  boolean,
  type EntrySchema,
  type FieldRule,
  integer,
  MAX_LOG_INTEGER,
  oneOf,
  sha256Hex,
  text,
} from './log-schema.js';

/** The most CPUs a machine has (`config.cpus`). */
export const MAX_CPUS = 64;
/** The largest quantum (virtual instructions per CPU per round) a config may ask for. */
export const MAX_QUANTUM = 1_000_000_000;
/**
 * The most a spawn's argv may hold, in characters all strings together: a quarter of the 128 KiB user
 * stack, as Linux bounds argv and envp by a quarter of the stack limit.
 * @see fs/exec.c bprm_stack_limits()
 */
export const MAX_ARGV_CHARS = 32 * 1024;
/** The most arguments a spawn may have. */
export const MAX_ARGV = 1024;
/** The largest module (`input:insmod` data, decoded). */
export const MAX_MODULE_BYTES = 64 * 1024 * 1024;
/** `PID_MAX_LIMIT`: the largest pid. @see include/linux/threads.h */
export const PID_MAX_LIMIT = 4 * 1024 * 1024;

const argv: FieldRule = (v) => {
  const what = `an array of 1 to ${MAX_ARGV} strings of ${MAX_ARGV_CHARS} characters in all`;
  if (!Array.isArray(v) || v.length < 1 || v.length > MAX_ARGV) return what;
  let chars = 0;
  for (const a of v) {
    if (typeof a !== 'string') return what;
    chars += a.length;
  }
  return chars <= MAX_ARGV_CHARS ? undefined : what;
};

const base64 = text(
  Math.ceil(MAX_MODULE_BYTES / 3) * 4,
  /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/,
  `base64 of at most ${MAX_MODULE_BYTES} bytes`,
);

const name = text(255, /^[^/\0]+$/, 'a file name of 1 to 255 characters');
const ns = integer(0, MAX_LOG_INTEGER);

/**
 * The schema of every entry type the kernel defines (event-log.md §2). Inputs of other packages bring
 * their own (`Session.handle`). Caused events are checked by re-execution, not by schema: a replay
 * produces them again and compares.
 */
export const KERNEL_LOG_SCHEMAS: ReadonlyMap<string, EntrySchema> = new Map<string, EntrySchema>([
  [
    'config',
    {
      required: {
        image: text(4096),
        imageSha256: sha256Hex,
        cpus: integer(1, MAX_CPUS),
        quantum: integer(1, MAX_QUANTUM),
        panicOnOops: boolean,
      },
    },
  ],
  ['input:spawn', { required: { argv }, optional: { sha256: sha256Hex } }],
  [
    'input:run',
    {
      required: {},
      optional: {
        pids: arrayOf(integer(1, PID_MAX_LIMIT), 1, MAX_ARGV, `pids (1 to ${PID_MAX_LIMIT})`),
        deadlineNs: ns,
      },
    },
  ],
  [
    'input:insmod',
    {
      required: { name, data: base64 },
      optional: {
        params: arrayOf(text(4096), 0, MAX_ARGV, 'module parameters (name=value strings of at most 4096 characters)'),
        sha256: sha256Hex,
      },
    },
  ],
  ['input:rmmod', { required: { name: text(255, /^[^\0]+$/, 'a module name of 1 to 255 characters') } }],
  [
    'checkpoint',
    {
      required: {
        input: ns,
        clocks: arrayOf(ns, 1, MAX_CPUS, 'virtual times in ns'),
        hash: sha256Hex,
      },
    },
  ],
  [
    'end',
    {
      required: {
        entries: integer(1, MAX_LOG_INTEGER),
        inputs: ns,
        hash: sha256Hex,
        stop: oneOf('complete', 'SIGINT', 'SIGTERM', 'SIGHUP'),
      },
    },
  ],
]);
