import type { FieldDescriptor } from '../events/trace-event-type.js';
import { compileFilter, type FilterPredicate } from './compile-filter.js';
import { type FilterParseError, formatFilterError } from './filter-error.js';
import { parseFilter } from './parse-filter.js';

/** The page a `filter` write must fit in: a write of this many bytes or more fails with EINVAL. @see PAGE_SIZE */
export const FILTER_WRITE_MAX = 4096;

/**
 * What writing a `filter` file returns: success, the parse error (EINVAL or EPERM), or `tooLong` for a
 * write of {@link FILTER_WRITE_MAX} bytes or more, refused before parsing with the filter left as it was.
 */
export type FilterWriteResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly error: FilterParseError }
  | { readonly ok: false; readonly tooLong: true };

/**
 * One event's `filter` file. Writing `0` clears it; writing an expression compiles it; a bad
 * expression disables filtering (every record passes, as in the kernel) and the file then reads
 * back the text with a caret and `parse_error: …`. Reading an unset filter gives `none`. A write of a
 * page or more is refused untouched, as `event_filter_write()` does (`cnt >= PAGE_SIZE`): that bounds
 * the parser's work, and its explicit stack bounds nothing else.
 *
 * @see kernel/trace/trace_events.c event_filter_write(), kernel/trace/trace_events_filter.c
 *   apply_event_filter(), print_event_filter()
 * @example
 * const f = new EventFilter(eventType.fields);
 * f.write('common_pid != 0 && comm ~ "ba*"');
 * if (f.match(ev.bytes, ev.offset)) buffer.commit(cpu); else buffer.discard(cpu);
 */
export class EventFilter {
  private text: string | undefined;
  private compiled: FilterPredicate | undefined;

  constructor(private readonly fields: readonly FieldDescriptor[]) {}

  /** The text and the compiled predicate (immutable), for a machine snapshot. */
  save(): readonly [string | undefined, FilterPredicate | undefined] {
    return Object.freeze([this.text, this.compiled] as const);
  }

  /** Puts back what {@link save} returned. */
  restore(s: readonly [string | undefined, FilterPredicate | undefined]): void {
    [this.text, this.compiled] = s;
  }

  /** The active predicate, or undefined when there is none (everything passes). */
  get predicate(): FilterPredicate | undefined {
    return this.compiled;
  }

  /** Writes the file (trailing whitespace, such as echo's newline, is stripped). */
  write(input: string): FilterWriteResult {
    if (new TextEncoder().encode(input).length >= FILTER_WRITE_MAX) return { ok: false, tooLong: true };
    const text = input.replace(/\s+$/, '');
    if (text.trim() === '0') {
      this.text = undefined;
      this.compiled = undefined;
      return { ok: true };
    }
    const parsed = parseFilter(text, this.fields);
    if (!parsed.ok) {
      this.text = formatFilterError(text, parsed.error);
      this.compiled = undefined;
      return parsed;
    }
    this.text = text;
    this.compiled = compileFilter(parsed.ast);
    return { ok: true };
  }

  /** Reads the file: `none`, the filter text, or the error report. */
  read(): string {
    return `${this.text ?? 'none'}\n`;
  }

  /** True if the record at `record[offset]` passes (always, with no filter). @see filter_match_preds() */
  match(record: Uint8Array, offset = 0): boolean {
    return this.compiled === undefined || this.compiled(record, offset);
  }
}
