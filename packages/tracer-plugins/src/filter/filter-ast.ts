import type { FieldDescriptor } from '../events/trace-event-type.js';

/** The comparison operators, in the kernel's matching order (`<=` before `<`). @see OPS in trace_events_filter.c */
export const FILTER_OPS = ['~', '!=', '==', '<=', '<', '>=', '>', '&'] as const;

/** One comparison operator. */
export type FilterOp = (typeof FILTER_OPS)[number];

/** A parsed filter expression. */
export type FilterNode =
  | { readonly type: 'and' | 'or'; readonly left: FilterNode; readonly right: FilterNode }
  | { readonly type: 'not'; readonly operand: FilterNode }
  /** `field OP number`; `value` is already cast to the field's width and signedness, as the kernel casts `pred->val`. */
  | { readonly type: 'int'; readonly field: FieldDescriptor; readonly op: FilterOp; readonly value: bigint }
  /** `field OP "string"` with `op` one of `==`, `!=`, `~` (glob). */
  | {
      readonly type: 'string';
      readonly field: FieldDescriptor;
      readonly op: '==' | '!=' | '~';
      readonly pattern: string;
    };

/** True for the fields the kernel compares as strings: `__data_loc char[]` and fixed `char[N]` arrays. @see is_string_field() */
export function isStringField(field: FieldDescriptor): boolean {
  return field.kind === 'string' || (field.kind === 'array' && /\bchar\b/.test(field.ctype));
}
