import { COMMON_FIELDS, type FieldDescriptor } from '../events/trace-event-type.js';
import { FILTER_OPS, type FilterNode, type FilterOp, isStringField } from './filter-ast.js';
import type { FilterErrorCode, FilterParseError } from './filter-error.js';
import { parseKernelInt } from './parse-kernel-int.js';

/** Longest quoted operand. @see MAX_FILTER_STR_VAL */
const MAX_FILTER_STR_VAL = 256;
/** Numeric operands must be shorter than the kernel's `num_buf[24]`. */
const NUM_BUF_SIZE = 24;

/** What {@link parseFilter} returns. */
export type ParseFilterResult =
  | { readonly ok: true; readonly ast: FilterNode }
  | { readonly ok: false; readonly error: FilterParseError };

/** Internal unwinding; never escapes {@link parseFilter}. */
class Failure {
  constructor(readonly error: FilterParseError) {}
}

function fail(code: FilterErrorCode, pos: number, errno: 'EINVAL' | 'EPERM' = 'EINVAL'): never {
  throw new Failure({ code, pos, errno });
}

const isSpace = (c: string | undefined) =>
  c === ' ' || c === '\t' || c === '\n' || c === '\v' || c === '\f' || c === '\r';
const isAlnum = (c: string | undefined) => c !== undefined && /^[A-Za-z0-9]$/.test(c);
const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

/**
 * Parses an event filter (`events/<group>/<event>/filter`) over an event's fields (the common fields
 * are always available): predicates `field OP value` with `== != < <= > >= &` on integers and
 * `== != ~` on strings (`~` takes a glob), joined by `&&` (binding tighter) and `||`, negated with
 * `!`, grouped with parentheses. Error codes and positions are the kernel's, so the read-back caret
 * lands where Linux puts it.
 *
 * @see kernel/trace/trace_events_filter.c process_preds(), calc_stack(), predicate_parse(), parse_pred()
 * @example
 * parseFilter('common_pid == 1 && !(arg1 & 0x4)', fields);
 */
export function parseFilter(text: string, fields: readonly FieldDescriptor[]): ParseFilterResult {
  try {
    checkStack(text);
    const parser = new FilterParser(text, fields);
    return { ok: true, ast: parser.parse() };
  } catch (e) {
    if (e instanceof Failure) return { ok: false, error: e.error };
    throw e;
  }
}

/**
 * The kernel's first pass: quotes must close and parentheses balance; also rejects an empty filter.
 *
 * @see calc_stack()
 */
function checkStack(text: string): void {
  const opens: number[] = [];
  let quote = '';
  let lastQuote = 0;
  let preds = 0;
  let inPred = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (isSpace(c)) continue;
    if (quote !== '') {
      if (c === quote) quote = '';
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      lastQuote = i;
    } else if ((c === '&' || c === '|') && text[i + 1] === c) {
      inPred = false;
      i++;
      continue;
    } else if (c === '(') {
      opens.push(i);
      inPred = false;
      continue;
    } else if (c === ')') {
      if (opens.length === 0) fail('TOO_MANY_CLOSE', i);
      opens.pop();
      inPred = false;
      continue;
    }
    if (!inPred) {
      preds++;
      inPred = true;
    }
  }
  if (quote !== '') fail('MISSING_QUOTE', lastQuote);
  if (opens.length > 0) fail('TOO_MANY_OPEN', opens[opens.length - 1]);
  if (preds === 0) fail('NONE', 0);
}

/** `node` under `count` negations, folded: an even number leaves it as it is, `!!x` never nests. */
function negate(node: FilterNode, count: number): FilterNode {
  let n = node;
  for (let k = 0; k < count; k++) n = n.type === 'not' ? n.operand : { type: 'not', operand: n };
  return n;
}

/** One open parenthesis (or the whole filter): its `||` terms so far, its current `&&` chain, and the `!`s before it. */
interface Group {
  or: FilterNode | undefined;
  and: FilterNode | undefined;
  readonly nots: number;
}

/**
 * The grammar `or := and ('||' and)*`, `and := unary ('&&' unary)*`, `unary := '(' or ')' | '!' unary
 * | predicate`, parsed with an explicit stack of open parentheses instead of recursion, so no filter
 * (however deeply nested) can overflow the JS stack; `i` is the byte index of the next unread
 * character. Runs of `!` fold as they parse (`!!x` is `x`), so the tree's depth is bounded by the
 * parentheses, not by the text's length.
 */
class FilterParser {
  private i = 0;

  constructor(
    private readonly text: string,
    private readonly fields: readonly FieldDescriptor[],
  ) {}

  parse(): FilterNode {
    const groups: Group[] = [{ or: undefined, and: undefined, nots: 0 }];
    let nots = 0;
    for (;;) {
      // Step 1: a unary: `!`s, then an opening parenthesis (a new group) or a predicate.
      this.skipSpace();
      const c = this.text[this.i];
      if (c === '(') {
        this.i++;
        groups.push({ or: undefined, and: undefined, nots });
        nots = 0;
        continue;
      }
      if (c === '!' && this.text[this.i + 1] !== '=' && this.text[this.i + 1] !== '~') {
        this.i++;
        nots++;
        continue;
      }
      let term = negate(this.parsePredicate(), nots);
      nots = 0;
      // Step 2: after a term: go on with `&&` or `||`, or close groups (each closed group is a term of its parent).
      for (;;) {
        const group = groups[groups.length - 1];
        group.and = group.and === undefined ? term : { type: 'and', left: group.and, right: term };
        if (this.takeConjunction('&') && !this.atEnd()) break;
        group.or = group.or === undefined ? group.and : { type: 'or', left: group.or, right: group.and };
        group.and = undefined;
        if (this.takeConjunction('|') && !this.atEnd()) break;
        if (groups.length === 1) {
          this.skipSpace();
          if (this.i < this.text.length) fail('TOO_MANY_PREDS', this.i);
          return group.or;
        }
        this.skipSpace();
        this.i++; // the ')' that checkStack guarantees and takeConjunction stopped at
        groups.pop();
        term = negate(group.or, group.nots);
      }
    }
  }

  /** Consumes `&&`/`||` if next; any other character after a term except `)` is an error. */
  private takeConjunction(c: '&' | '|'): boolean {
    this.skipSpace();
    const t = this.text;
    if (t[this.i] === c && t[this.i + 1] === c) {
      this.i += 2;
      return true;
    }
    const next = t[this.i];
    if (next === undefined || next === ')') return false;
    if ((next === '&' || next === '|') && t[this.i + 1] === next) return false;
    return fail('TOO_MANY_PREDS', this.i);
  }

  /** A trailing `&&` or `||` is accepted and ignored, as the kernel's first pass does. */
  private atEnd(): boolean {
    this.skipSpace();
    return this.i >= this.text.length;
  }

  /** `field OP value`. Errors inside a predicate are reported at (start + 1 + offset), as the kernel does. */
  private parsePredicate(): FilterNode {
    const t = this.text;
    const start = this.i;
    const base = start + 1;
    let i = start;
    while (isAlnum(t[i]) || t[i] === '_') i++;
    if (i === start) fail('NONE', 0, 'EPERM');
    const name = t.slice(start, i);
    const field = this.findField(name);
    if (field === undefined) fail('FIELD_NOT_FOUND', base + (i - start));
    while (isSpace(t[i])) i++;
    const op = FILTER_OPS.find((o) => t.startsWith(o, i));
    if (op === undefined) return fail('INVALID_OP', base + (i - start));
    i += op.length;
    while (isSpace(t[i])) i++;
    const s = i;
    const at = () => base + (i - start);
    let node: FilterNode;
    const q = t[i];
    if (q === "'" || q === '"') {
      if (op !== '==' && op !== '!=' && op !== '~') fail('ILLEGAL_FIELD_OP', at());
      if (!isStringField(field)) fail('EXPECT_DIGIT', at());
      i++;
      while (i < t.length && t[i] !== q) i++;
      if (i >= t.length) fail('MISSING_QUOTE', at());
      const pattern = t.slice(s + 1, i);
      if (pattern.length >= MAX_FILTER_STR_VAL) fail('OPERAND_TOO_LONG', at());
      i++;
      node = { type: 'string', field, op, pattern };
    } else if (isDigit(q) || q === '-') {
      if (isStringField(field)) fail('EXPECT_STRING', at());
      if (op === '~' || field.kind !== 'int' || ![1, 2, 4, 8].includes(field.size)) fail('ILLEGAL_FIELD_OP', at());
      if (q === '-') i++;
      while (isAlnum(t[i])) i++;
      if (i - s >= NUM_BUF_SIZE) fail('OPERAND_TOO_LONG', at());
      const parsed = parseKernelInt(t.slice(s, i), field.signed);
      if (parsed === undefined) return fail('ILLEGAL_INTVAL', base + (s - start));
      const bits = field.size * 8;
      const value = field.signed ? BigInt.asIntN(bits, parsed) : BigInt.asUintN(bits, parsed);
      node = { type: 'int', field, op: op as FilterOp, value };
    } else {
      return fail('INVALID_VALUE', at());
    }
    this.i = i;
    return node;
  }

  /** Common fields first, then the event's own. @see trace_find_event_field() */
  private findField(name: string): FieldDescriptor | undefined {
    return COMMON_FIELDS.find((f) => f.name === name) ?? this.fields.find((f) => f.name === name);
  }

  private skipSpace(): void {
    while (isSpace(this.text[this.i])) this.i++;
  }
}
