import type { FieldDescriptor } from '../events/trace-event-type.js';
import type { FilterNode, FilterOp } from './filter-ast.js';
import { globMatch } from './glob-match.js';

/**
 * A compiled filter: true if the record whose common header starts at `record[offset]` passes.
 * Reads fields straight from the bytes; never allocates.
 */
export type FilterPredicate = (record: Uint8Array, offset?: number) => boolean;

type Pred = (r: Uint8Array, o: number) => boolean;
type Reader = (r: Uint8Array, o: number) => number;

const readers: Record<string, Reader> = {
  u1: (r, o) => r[o],
  s1: (r, o) => (r[o] << 24) >> 24,
  u2: (r, o) => r[o] | (r[o + 1] << 8),
  s2: (r, o) => ((r[o] | (r[o + 1] << 8)) << 16) >> 16,
  u4: (r, o) => (r[o] | (r[o + 1] << 8) | (r[o + 2] << 16) | (r[o + 3] << 24)) >>> 0,
  s4: (r, o) => r[o] | (r[o + 1] << 8) | (r[o + 2] << 16) | (r[o + 3] << 24),
};

/**
 * Compiles a parsed filter into a predicate, once: each comparison becomes a closure specialised for
 * the field's width and signedness, as the kernel picks `filter_pred_<type>` per predicate.
 *
 * @see kernel/trace/trace_events_filter.c select_comparison_fn(), filter_match_preds()
 */
export function compileFilter(ast: FilterNode): FilterPredicate {
  const root = compileNode(ast);
  return (record, offset = 0) => root(record, offset);
}

function compileNode(node: FilterNode): Pred {
  switch (node.type) {
    case 'and': {
      const preds = chainOf(node, 'and').map(compileNode);
      return (r, o) => {
        for (let k = 0; k < preds.length; k++) if (!preds[k](r, o)) return false;
        return true;
      };
    }
    case 'or': {
      const preds = chainOf(node, 'or').map(compileNode);
      return (r, o) => {
        for (let k = 0; k < preds.length; k++) if (preds[k](r, o)) return true;
        return false;
      };
    }
    case 'not': {
      const a = compileNode(node.operand);
      return (r, o) => !a(r, o);
    }
    case 'int':
      return node.field.size === 8
        ? compileInt64(node.field, node.op, node.value)
        : compileInt(node.field, node.op, node.value);
    case 'string':
      return compileString(node.field, node.op, node.pattern);
  }
}

/**
 * The operands of a run of one conjunction, left to right, gathered without recursion: a 10,000-term
 * `&&` chain becomes one loop over 10,000 predicates, not 10,000 nested closures.
 */
function chainOf(node: FilterNode, type: 'and' | 'or'): FilterNode[] {
  const operands: FilterNode[] = [];
  const pending: FilterNode[] = [node];
  while (pending.length > 0) {
    const n = pending.pop()!;
    if (n.type === type) pending.push(n.right, n.left);
    else operands.push(n);
  }
  return operands;
}

function compileInt(field: FieldDescriptor, op: FilterOp, value: bigint): Pred {
  const read = readers[`${field.signed ? 's' : 'u'}${field.size}`];
  const off = field.offset;
  const c = Number(value);
  switch (op) {
    case '==':
      return (r, o) => read(r, o + off) === c;
    case '!=':
      return (r, o) => read(r, o + off) !== c;
    case '<':
      return (r, o) => read(r, o + off) < c;
    case '<=':
      return (r, o) => read(r, o + off) <= c;
    case '>':
      return (r, o) => read(r, o + off) > c;
    case '>=':
      return (r, o) => read(r, o + off) >= c;
    case '&':
      return (r, o) => (read(r, o + off) & c) !== 0;
    default:
      throw new Error(`compileFilter: operator ${op} on an integer field`);
  }
}

/** 64-bit fields compare as (high word, low word) pairs, so no BigInt is made per record. */
function compileInt64(field: FieldDescriptor, op: FilterOp, value: bigint): Pred {
  const off = field.offset;
  const readHi = field.signed ? readers.s4 : readers.u4;
  const readLo = readers.u4;
  const bits = BigInt.asUintN(64, value);
  const lo = Number(bits & 0xffff_ffffn);
  const hi = field.signed ? Number(BigInt.asIntN(32, bits >> 32n)) : Number(bits >> 32n);
  const cmp = (r: Uint8Array, o: number): number => {
    const h = readHi(r, o + off + 4);
    if (h !== hi) return h < hi ? -1 : 1;
    const l = readLo(r, o + off);
    return l === lo ? 0 : l < lo ? -1 : 1;
  };
  switch (op) {
    case '==':
      return (r, o) => cmp(r, o) === 0;
    case '!=':
      return (r, o) => cmp(r, o) !== 0;
    case '<':
      return (r, o) => cmp(r, o) < 0;
    case '<=':
      return (r, o) => cmp(r, o) <= 0;
    case '>':
      return (r, o) => cmp(r, o) > 0;
    case '>=':
      return (r, o) => cmp(r, o) >= 0;
    case '&':
      return (r, o) => ((readLo(r, o + off) & lo) | (readHi(r, o + off + 4) & hi)) !== 0;
    default:
      throw new Error(`compileFilter: operator ${op} on an integer field`);
  }
}

const encoder = new TextEncoder();

/**
 * String fields: `==`/`!=` compare whole strings; `~` globs, and a pattern starting with `!` inverts
 * the match, as `filter_parse_regex()` does.
 */
function compileString(field: FieldDescriptor, op: '==' | '!=' | '~', pattern: string): Pred {
  let invert = op === '!=';
  let text = pattern;
  if (op === '~' && text.startsWith('!')) {
    invert = true;
    text = text.slice(1);
  }
  const pat = encoder.encode(text);
  const off = field.offset;
  const dynamic = field.kind === 'string';
  const size = field.size;
  const match =
    op === '~'
      ? (r: Uint8Array, start: number, end: number) => globMatch(pat, r, start, end)
      : (r: Uint8Array, start: number, end: number) => equalBytes(pat, r, start, end);
  return (r, o) => {
    let start: number;
    let limit: number;
    if (dynamic) {
      // __data_loc: u32 = length << 16 | offset from the record start.
      const loc = readers.u4(r, o + off);
      start = o + (loc & 0xffff);
      limit = start + (loc >>> 16);
    } else {
      start = o + off;
      limit = start + size;
    }
    if (limit > r.length) limit = r.length;
    let end = start;
    while (end < limit && r[end] !== 0) end++;
    return match(r, start, end) !== invert;
  };
}

function equalBytes(pat: Uint8Array, r: Uint8Array, start: number, end: number): boolean {
  if (end - start !== pat.length) return false;
  for (let i = 0; i < pat.length; i++) if (r[start + i] !== pat[i]) return false;
  return true;
}
