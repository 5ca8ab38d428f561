import { KernelError } from '../kernel-error.js';
import { KERNEL_LOG_SCHEMAS } from './kernel-log-schemas.js';
import type { LogEntry } from './log-codec.js';
import { checkEntry, type EntrySchema, integer, MAX_LOG_INTEGER } from './log-schema.js';

/** The last entry of a complete log (event-log.md §2, `end`). */
export interface LogEnd extends LogEntry {
  readonly type: 'end';
  /** Entries before this one, the config included. */
  readonly entries: number;
  /** Inputs in the log. */
  readonly inputs: number;
  /** The state hash at the end (the last checkpoint's). */
  readonly hash: string;
  /** `complete`, or the signal that stopped the recording (it then holds the run up to there). */
  readonly stop: 'complete' | 'SIGINT' | 'SIGTERM' | 'SIGHUP';
}

/** A log whose every entry was checked: its entries, its end, and how much of it replays. */
export interface ValidLog {
  readonly entries: readonly LogEntry[];
  /** The end record; undefined when the log was cut off (incomplete). */
  readonly end: LogEnd | undefined;
  /**
   * Entries that make whole inputs (each with its checkpoint), the config included: all but the end
   * for a complete log; for an incomplete one, up to its last checkpoint.
   */
  readonly replayable: number;
  /** Inputs among the replayable entries. */
  readonly inputs: number;
}

const CAUSED_TYPE = /^[a-z][a-z0-9_-]{0,31}(?::[a-z][a-z0-9_-]{0,31})?$/;
const at = integer(0, MAX_LOG_INTEGER);

/**
 * Checks every entry of a decoded log against its schema and the log's rules (event-log.md §1-§2):
 * the config first; each input of a known type with valid fields, followed (after what it caused) by
 * exactly one checkpoint numbering it, with one clock per CPU; the `end` record last, counting the
 * entries and inputs before it. A log without `end` is incomplete, not corrupt: {@link ValidLog.end}
 * is undefined and {@link ValidLog.replayable} says where it stops. Any other break is an error
 * `<name>: corrupt log: entry N (line L): <what is wrong>`.
 *
 * @param inputSchemas the schemas of inputs other packages define (`input:tracefs-write`, …)
 */
export function validateLog(
  entries: readonly LogEntry[],
  name: string,
  inputSchemas: ReadonlyMap<string, EntrySchema> = new Map(),
): ValidLog {
  const fail = (n: number, what: string) =>
    new KernelError('BAD_LOG', `${name}: corrupt log: entry ${n} (line ${n + 2}): ${what}`);
  const schemaOf = (type: string) => KERNEL_LOG_SCHEMAS.get(type) ?? inputSchemas.get(type);
  const config = entries[0];
  if (config?.type !== 'config') throw fail(0, 'the first entry must be the config');
  let inputs = 0;
  let open = false; // an input waits for its checkpoint
  let replayable = 1;
  let end: LogEnd | undefined;
  for (let n = 0; n < entries.length; n++) {
    const e = entries[n];
    if (end) throw fail(n, `an entry after the end record (entry ${n - 1})`);
    const schema = schemaOf(e.type);
    if (e.type.startsWith('input:') || e.type === 'config' || e.type === 'checkpoint' || e.type === 'end') {
      if (!schema) throw fail(n, `unknown input type ${JSON.stringify(e.type.slice(0, 64))}`);
      const wrong = checkEntry(e, schema);
      if (wrong) throw fail(n, wrong);
    } else if (!CAUSED_TYPE.test(e.type)) {
      throw fail(n, `unknown entry type ${JSON.stringify(e.type.slice(0, 64))}`);
    } else {
      if (!open) throw fail(n, `${e.type} outside an input (events happen between an input and its checkpoint)`);
      if (Object.hasOwn(e, 'at') && at(e.at) !== undefined) throw fail(n, `${e.type} 'at' must be ${at(e.at)}`);
      continue;
    }
    switch (e.type) {
      case 'config':
        if (n !== 0) throw fail(n, 'a second config');
        break;
      case 'checkpoint':
        if (!open) throw fail(n, 'a checkpoint without an input before it');
        if (e.input !== inputs - 1) throw fail(n, `the checkpoint of input #${inputs - 1} says input #${e.input}`);
        if ((e.clocks as number[]).length !== config.cpus) {
          throw fail(n, `the checkpoint has ${(e.clocks as number[]).length} clocks for ${config.cpus} CPUs`);
        }
        open = false;
        replayable = n + 1;
        break;
      case 'end':
        if (open) throw fail(n, `the end record comes before the checkpoint of input #${inputs - 1}`);
        if (e.entries !== n) throw fail(n, `the end record counts ${e.entries} entries before it, the log has ${n}`);
        if (e.inputs !== inputs) throw fail(n, `the end record counts ${e.inputs} inputs, the log has ${inputs}`);
        end = e as LogEnd;
        break;
      default:
        if (open) throw fail(n, `input #${inputs - 1} has no checkpoint before the next input`);
        open = true;
        inputs++;
    }
  }
  return Object.freeze({ entries, end, replayable, inputs: open ? inputs - 1 : inputs });
}
