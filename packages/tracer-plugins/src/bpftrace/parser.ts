import type { AttachPoint, Expr, IntTypeName, MapAccess, Probe, Program, Stmt, VarOrMap } from './ast.js';
import { parseAttachPoint } from './attach-point.js';
import { BpftraceError } from './bpftrace-error.js';
import { isPunct, Lexer, type Token } from './lexer.js';
import { joinLocations, type SourceLocation } from './source-location.js';

/** Binary operators by precedence, loosest first (C's). */
const LEVELS: readonly (readonly string[])[] = [
  ['||'],
  ['&&'],
  ['|'],
  ['^'],
  ['&'],
  ['==', '!='],
  ['<', '<=', '>', '>='],
  ['<<', '>>'],
  ['+', '-'],
  ['*', '/', '%'],
];

const INT_TYPES = new Set<string>(['int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64']);
const COMPOUND = new Set(['+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '<<=', '>>=']);

/**
 * Parses a bpftrace program: probes (`kprobe:f,kretprobe:g /pred/ { … }`), statements (assignments,
 * `if`/`else`, `unroll`, `while`, `for ($kv : @m)`), and expressions with C's precedence, casts,
 * dereferences, tuples and calls. A syntax error is a {@link BpftraceError} at the offending token.
 *
 * @see bpftrace src/parser.yy, docs/language.md
 * @example
 * parseProgram('kprobe:vfs_read /pid > 1/ { @[comm] = count(); }').probes[0].attachPoints[0].func; // 'vfs_read'
 */
export function parseProgram(source: string): Program {
  return new Parser(source).program();
}

class Parser {
  readonly #lx: Lexer;
  /** Inside a predicate and outside brackets, `/` closes the predicate instead of dividing. */
  #noDivide = false;

  constructor(source: string) {
    this.#lx = new Lexer(source);
  }

  program(): Program {
    const probes: Probe[] = [];
    while (this.#lx.peek().kind !== 'eof') probes.push(this.#probe());
    return { probes };
  }

  #probe(): Probe {
    const points: AttachPoint[] = [];
    for (;;) {
      const t = this.#lx.readAttachPoint();
      if (t.text === '') throw this.#unexpected(this.#lx.peek(), 'expected attach point');
      points.push(parseAttachPoint(t.text, t.loc));
      if (!isPunct(this.#lx.peek(), ',')) break;
      this.#lx.next();
    }
    let predicate: Expr | undefined;
    if (isPunct(this.#lx.peek(), '/')) {
      this.#lx.next();
      this.#noDivide = true;
      predicate = this.#expr();
      this.#noDivide = false;
      const close = this.#lx.peek();
      if (!isPunct(close, '/')) throw new BpftraceError("syntax: expected '/' to close predicate", close.loc);
      this.#lx.next();
    }
    const { stmts, loc } = this.#block();
    return { attachPoints: points, predicate, body: stmts, loc: joinLocations(points[0].loc, loc) };
  }

  #block(): { stmts: Stmt[]; loc: SourceLocation } {
    const open = this.#expect('{');
    const stmts: Stmt[] = [];
    for (;;) {
      const t = this.#lx.peek();
      if (isPunct(t, '}')) break;
      if (t.kind === 'eof') throw new BpftraceError("syntax: expected '}'", t.loc);
      if (isPunct(t, ';')) {
        this.#lx.next();
        continue;
      }
      const s = this.#stmt();
      stmts.push(s);
      if (s.kind === 'if' || s.kind === 'unroll' || s.kind === 'while' || s.kind === 'for') continue;
      const after = this.#lx.peek();
      if (isPunct(after, ';')) this.#lx.next();
      else if (!isPunct(after, '}')) throw new BpftraceError('syntax: unexpected input in block', after.loc);
    }
    const close = this.#lx.next();
    return { stmts, loc: joinLocations(open.loc, close.loc) };
  }

  #stmt(): Stmt {
    const t = this.#lx.peek();
    if (t.kind === 'ident') {
      switch (t.text) {
        case 'if':
          return this.#if();
        case 'unroll':
        case 'while': {
          this.#lx.next();
          this.#expect('(');
          const cond = this.#expr();
          this.#expect(')');
          const body = this.#block();
          const loc = joinLocations(t.loc, body.loc);
          return t.text === 'while'
            ? { kind: 'while', cond, body: body.stmts, loc }
            : { kind: 'unroll', count: cond, body: body.stmts, loc };
        }
        case 'for':
          return this.#for();
        case 'break':
        case 'continue':
        case 'return':
          this.#lx.next();
          return { kind: t.text, loc: t.loc };
        case 'let': {
          this.#lx.next();
          const v = this.#lx.next();
          if (v.kind !== 'var') throw this.#unexpected(v, "expected a '$' variable after let");
          const variable: Expr = { kind: 'var', name: v.text, loc: v.loc };
          if (!isPunct(this.#lx.peek(), '=')) return { kind: 'expr', expr: variable, loc: v.loc };
          this.#lx.next();
          const value = this.#expr();
          return { kind: 'assign', target: variable, op: '=', value, loc: joinLocations(t.loc, value.loc) };
        }
      }
    }
    const expr = this.#expr();
    const op = this.#lx.peek();
    if (op.kind === 'punct' && (op.text === '=' || COMPOUND.has(op.text))) {
      if (expr.kind !== 'var' && expr.kind !== 'map') {
        throw new BpftraceError('syntax: can only assign to a $variable or an @map', expr.loc);
      }
      this.#lx.next();
      const value = this.#expr();
      const arith = op.text === '=' ? '=' : op.text.slice(0, -1);
      return { kind: 'assign', target: expr, op: arith, value, loc: joinLocations(expr.loc, value.loc) };
    }
    return { kind: 'expr', expr, loc: expr.loc };
  }

  #if(): Stmt {
    const kw = this.#lx.next();
    this.#expect('(');
    const cond = this.#expr();
    this.#expect(')');
    const then = this.#block();
    let otherwise: Stmt[] | undefined;
    let loc = joinLocations(kw.loc, then.loc);
    const e = this.#lx.peek();
    if (e.kind === 'ident' && e.text === 'else') {
      this.#lx.next();
      const n = this.#lx.peek();
      if (n.kind === 'ident' && n.text === 'if') {
        const nested = this.#if();
        otherwise = [nested];
        loc = joinLocations(loc, nested.loc);
      } else {
        const b = this.#block();
        otherwise = b.stmts;
        loc = joinLocations(loc, b.loc);
      }
    }
    return { kind: 'if', cond, consequent: then.stmts, otherwise, loc };
  }

  #for(): Stmt {
    const kw = this.#lx.next();
    this.#expect('(');
    const v = this.#lx.next();
    if (v.kind !== 'var') throw this.#unexpected(v, "expected a '$' variable");
    this.#expect(':');
    const m = this.#lx.next();
    if (m.kind !== 'map') throw this.#unexpected(m, 'expected a map to iterate over');
    this.#expect(')');
    const body = this.#block();
    return {
      kind: 'for',
      variable: { kind: 'var', name: v.text, loc: v.loc },
      map: { kind: 'map', name: m.text, keys: [], loc: m.loc },
      body: body.stmts,
      loc: joinLocations(kw.loc, body.loc),
    };
  }

  #expr(): Expr {
    const cond = this.#binary(0);
    if (!isPunct(this.#lx.peek(), '?')) return cond;
    this.#lx.next();
    const then = this.#expr();
    this.#expect(':');
    const otherwise = this.#expr();
    return { kind: 'ternary', cond, consequent: then, otherwise, loc: joinLocations(cond.loc, otherwise.loc) };
  }

  #binary(level: number): Expr {
    if (level === LEVELS.length) return this.#unary();
    let left = this.#binary(level + 1);
    for (;;) {
      const t = this.#lx.peek();
      if (t.kind !== 'punct' || !LEVELS[level].includes(t.text)) return left;
      if (t.text === '/' && this.#noDivide && this.#closesPredicate()) return left;
      this.#lx.next();
      const right = this.#binary(level + 1);
      left = { kind: 'binary', op: t.text, left, right, loc: joinLocations(left.loc, right.loc) };
    }
  }

  /** In a predicate, a `/` followed by the action block's `{` closes it (`/100/25/ {` divides once). */
  #closesPredicate(): boolean {
    const saved = this.#lx.save();
    this.#lx.next();
    const after = this.#lx.peek();
    this.#lx.restore(saved);
    return isPunct(after, '{') || after.kind === 'eof';
  }

  #unary(): Expr {
    const t = this.#lx.peek();
    if (t.kind === 'punct') {
      if (t.text === '!' || t.text === '~' || t.text === '-' || t.text === '*') {
        this.#lx.next();
        const operand = this.#unary();
        return { kind: 'unary', op: t.text, operand, loc: joinLocations(t.loc, operand.loc) };
      }
      if (t.text === '++' || t.text === '--') {
        this.#lx.next();
        const target = this.#unary();
        return {
          kind: 'incdec',
          op: t.text,
          prefix: true,
          target: this.#lvalue(target),
          loc: joinLocations(t.loc, target.loc),
        };
      }
      if (t.text === '(') {
        const cast = this.#cast();
        if (cast) return cast;
      }
    }
    return this.#postfix(this.#primary());
  }

  /** `(type)` or `(type *)` followed by its operand, or undefined (and nothing consumed) if not a cast. */
  #cast(): Expr | undefined {
    const saved = this.#lx.save();
    const open = this.#lx.next();
    const name = this.#lx.next();
    if (name.kind !== 'ident' || !INT_TYPES.has(name.text)) {
      this.#lx.restore(saved);
      return undefined;
    }
    let pointer = 0;
    while (isPunct(this.#lx.peek(), '*')) {
      this.#lx.next();
      pointer++;
    }
    if (!isPunct(this.#lx.peek(), ')')) {
      this.#lx.restore(saved);
      return undefined;
    }
    this.#lx.next();
    const operand = this.#unary();
    return {
      kind: 'cast',
      type: name.text as IntTypeName,
      pointer,
      operand,
      loc: joinLocations(open.loc, operand.loc),
    };
  }

  #postfix(e: Expr): Expr {
    for (;;) {
      const t = this.#lx.peek();
      if (isPunct(t, '.')) {
        this.#lx.next();
        const f = this.#lx.next();
        if (f.kind !== 'int') throw this.#unexpected(f, 'expected a tuple index');
        e = { kind: 'field', target: e, index: Number(f.value), loc: joinLocations(e.loc, f.loc) };
      } else if (isPunct(t, '++') || isPunct(t, '--')) {
        this.#lx.next();
        e = {
          kind: 'incdec',
          op: t.text as '++' | '--',
          prefix: false,
          target: this.#lvalue(e),
          loc: joinLocations(e.loc, t.loc),
        };
      } else return e;
    }
  }

  #lvalue(e: Expr): VarOrMap {
    if (e.kind === 'var' || e.kind === 'map') return e;
    throw new BpftraceError('syntax: ++ and -- apply to a $variable or an @map', e.loc);
  }

  #primary(): Expr {
    const t = this.#lx.next();
    switch (t.kind) {
      case 'int':
        return { kind: 'int', value: t.value as bigint, loc: t.loc };
      case 'string':
        return { kind: 'string', value: t.text, loc: t.loc };
      case 'var':
        return { kind: 'var', name: t.text, loc: t.loc };
      case 'map':
        return this.#map(t);
      case 'ident': {
        if (t.text === 'true' || t.text === 'false') return { kind: 'bool', value: t.text === 'true', loc: t.loc };
        if (!isPunct(this.#lx.peek(), '(')) return { kind: 'builtin', name: t.text, loc: t.loc };
        this.#lx.next();
        const args = this.#list(')');
        const close = this.#lx.next();
        return { kind: 'call', name: t.text, args, loc: joinLocations(t.loc, close.loc) };
      }
      case 'punct':
        if (t.text === '(') {
          const elems = this.#list(')');
          const close = this.#lx.next();
          const loc = joinLocations(t.loc, close.loc);
          if (elems.length === 0) throw new BpftraceError('syntax: unexpected ()', loc);
          // `(e)` groups, `(a, b)` is a tuple; a trailing comma `(a,)` makes a one-element tuple.
          if (elems.length === 1 && !this.#trailingComma) return elems[0];
          return { kind: 'tuple', elems, loc };
        }
    }
    throw this.#unexpected(t, 'expected an expression');
  }

  /** Whether the list {@link Parser.#list} read last ended in a comma. */
  #trailingComma = false;

  /** Comma-separated expressions up to (not including) `close`, with `/` dividing again. */
  #list(close: string): Expr[] {
    const saved = this.#noDivide;
    this.#noDivide = false;
    const out: Expr[] = [];
    let trailing = false;
    while (!isPunct(this.#lx.peek(), close)) {
      out.push(this.#expr());
      const t = this.#lx.peek();
      if (isPunct(t, ',')) {
        this.#lx.next();
        trailing = isPunct(this.#lx.peek(), close);
        continue;
      }
      if (!isPunct(t, close)) throw new BpftraceError(`syntax: expected '${close}'`, t.loc);
    }
    this.#noDivide = saved;
    this.#trailingComma = trailing;
    return out;
  }

  #map(t: Token): MapAccess {
    if (!isPunct(this.#lx.peek(), '[')) return { kind: 'map', name: t.text, keys: [], loc: t.loc };
    this.#lx.next();
    const keys = this.#list(']');
    const close = this.#lx.next();
    const loc = joinLocations(t.loc, close.loc);
    if (keys.length === 0) throw new BpftraceError('syntax: empty map key', loc);
    return { kind: 'map', name: t.text, keys, loc };
  }

  #expect(p: string): Token {
    const t = this.#lx.next();
    if (!isPunct(t, p)) throw new BpftraceError(`syntax: expected '${p}'`, t.loc);
    return t;
  }

  #unexpected(t: Token, what: string): BpftraceError {
    const found = t.kind === 'eof' ? 'end of file' : `'${t.text}'`;
    return new BpftraceError(`syntax: unexpected ${found}, ${what}`, t.loc);
  }
}
