import { COMMON_FIELDS, type FormatContext, type TraceEventType } from '../events/trace-event-type.js';

/** The `common_type` of a stack entry. @see kernel/trace/trace.h enum trace_type TRACE_STACK */
export const TRACE_STACK = 4;

/** Where a stack entry holds its caller count (`size`, an int) and its callers (u64 each). */
export const KERNEL_STACK_SIZE_OFFSET = 8;
export const KERNEL_STACK_CALLER_OFFSET = 16;

/** `%pS` text `sym+0xoff/0xsize [mod]` → `sym`, as kallsyms_lookup() names an address. */
function symbolName(text: string): string {
  const plus = text.indexOf('+0x');
  return plus > 0 ? text.slice(0, plus) : text;
}

/**
 * `ftrace:kernel_stack`, the entry a `stacktrace` trigger writes: `<stack trace>` then one
 * ` => symbol` line per caller, innermost first, each address named by its symbol alone (the default
 * without the `sym-offset` option), or `0x%08lx` when no symbol covers it.
 *
 * @see kernel/trace/trace_output.c trace_stack_print(), seq_print_ip_sym(); kernel/trace/trace_entries.h kernel_stack
 */
export const KERNEL_STACK_EVENT: TraceEventType = Object.freeze({
  id: TRACE_STACK,
  system: 'ftrace',
  name: 'kernel_stack',
  fields: Object.freeze([
    ...COMMON_FIELDS,
    { name: 'size', ctype: 'int', offset: KERNEL_STACK_SIZE_OFFSET, size: 4, signed: true, kind: 'int' as const },
  ]),
  printFmt: '"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n"',
  formatBody(record: Uint8Array, ctx: FormatContext): string {
    const v = new DataView(record.buffer, record.byteOffset, record.byteLength);
    const n = v.getInt32(KERNEL_STACK_SIZE_OFFSET, true);
    let out = '<stack trace>';
    for (let i = 0; i < n && KERNEL_STACK_CALLER_OFFSET + 8 * i + 8 <= record.length; i++) {
      const a = v.getBigUint64(KERNEL_STACK_CALLER_OFFSET + 8 * i, true);
      const named = ctx.symbolize(a);
      out += `\n => ${named === undefined ? `0x${a.toString(16).padStart(8, '0')}` : symbolName(named)}`;
    }
    return out;
  },
});
