import { MAX_EVENT_NAME_LEN } from './parse-event-name.js';

/** The group of kprobe events defined without one. @see KPROBE_EVENT_SYSTEM */
export const KPROBE_EVENT_SYSTEM = 'kprobes';

/**
 * Replaces `:`, `.` and `*` with `_`, from the second character on (the kernel's loop advances before
 * it looks).
 *
 * @see kernel/trace/trace.h sanitize_event_name()
 */
export function sanitizeEventName(name: string): string {
  return name.slice(0, 1) + name.slice(1).replace(/[:.*]/g, '_');
}

/** `%p` of an address on a 64-bit kernel: 16 zero-padded hex digits (unhashed here). */
export function formatPointer(address: bigint): string {
  return `0x${address.toString(16).padStart(16, '0')}`;
}

/**
 * The name of an event defined without one: `p_<sym>_<decimal offset>` / `r_...`, or `p_0x<addr>`,
 * cut to 63 characters and sanitized.
 *
 * @see kernel/trace/trace_kprobe.c __trace_kprobe_create()
 * @example defaultEventName('p', 'foo.isra.0', 0) // 'p_foo_isra_0_0'
 */
export function defaultEventName(
  kind: 'p' | 'r',
  symbol: string | undefined,
  offset: number,
  address?: bigint,
): string {
  const raw = symbol !== undefined ? `${kind}_${symbol}_${offset}` : `${kind}_${formatPointer(address ?? 0n)}`;
  return sanitizeEventName(raw.slice(0, MAX_EVENT_NAME_LEN - 1));
}
