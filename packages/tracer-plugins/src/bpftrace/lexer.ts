import { BpftraceError } from './bpftrace-error.js';
import type { SourceLocation } from './source-location.js';

/** What a token is: a literal, a name, a `$scratch`, an `@map`, punctuation, or the end. */
export type TokenKind = 'int' | 'string' | 'ident' | 'var' | 'map' | 'punct' | 'eof';

/** One token: its kind, its text (a string literal's value, escapes decoded) and where it is. */
export interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  /** An integer literal's value. */
  readonly value?: bigint;
  readonly loc: SourceLocation;
  /** Offset of its first character in the source. */
  readonly start: number;
  /** Offset just past it. */
  readonly end: number;
}

/** Punctuation, longest first so `<<=` wins over `<<` and `<`. */
const PUNCT = [
  '<<=',
  '>>=',
  '...',
  '==',
  '!=',
  '<=',
  '>=',
  '&&',
  '||',
  '<<',
  '>>',
  '++',
  '--',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '&=',
  '|=',
  '^=',
  '->',
  '{',
  '}',
  '(',
  ')',
  '[',
  ']',
  ';',
  ',',
  ':',
  '?',
  '.',
  '+',
  '-',
  '*',
  '/',
  '%',
  '&',
  '|',
  '^',
  '!',
  '~',
  '<',
  '>',
  '=',
];

const IDENT_START = /[A-Za-z_]/;
const IDENT_PART = /[A-Za-z0-9_]/;
const U64_MAX = (1n << 64n) - 1n;

/**
 * bpftrace's lexer, on demand: {@link Lexer.peek} and {@link Lexer.next} read the token language
 * (comments and blanks skipped); {@link Lexer.readAttachPoint} reads a probe's attach point, whose
 * characters (`kprobe:vfs_*+0x10`) are not tokens, as bpftrace's lexer switches start condition there.
 *
 * @see bpftrace src/lexer.l
 */
export class Lexer {
  #pos = 0;
  #line = 1;
  #col = 1;
  #peeked: Token | undefined;

  constructor(readonly source: string) {}

  /** Where the lexer is, to come back to with {@link Lexer.restore} (the parser's lookahead). */
  save(): unknown {
    return [this.#pos, this.#line, this.#col, this.#peeked];
  }

  restore(state: unknown): void {
    [this.#pos, this.#line, this.#col, this.#peeked] = state as [number, number, number, Token | undefined];
  }

  /** The next token, not consumed. */
  peek(): Token {
    this.#peeked ??= this.#lex();
    return this.#peeked;
  }

  /** The next token, consumed. */
  next(): Token {
    const t = this.peek();
    this.#peeked = undefined;
    return t;
  }

  /**
   * After blanks and comments, the longest run of attach-point characters (letters, digits, `_ : * + .
   * - [ ] ?` and `$`-less text), as one token of kind `ident`; an empty token when there is none.
   */
  readAttachPoint(): Token {
    if (this.#peeked) {
      // Rewind: attach points are lexed from the raw text.
      const p = this.#peeked;
      this.#pos = p.start;
      this.#line = p.loc.line;
      this.#col = p.loc.column;
      this.#peeked = undefined;
    }
    this.#skipBlanks();
    const start = this.#pos;
    const line = this.#line;
    const col = this.#col;
    while (this.#pos < this.source.length && /[A-Za-z0-9_:*+.\-[\]?]/.test(this.source[this.#pos])) this.#advance();
    return this.#token('ident', this.source.slice(start, this.#pos), start, line, col);
  }

  #advance(): void {
    if (this.source[this.#pos] === '\n') {
      this.#line++;
      this.#col = 1;
    } else this.#col++;
    this.#pos++;
  }

  #token(kind: TokenKind, text: string, start: number, line: number, col: number, value?: bigint): Token {
    const loc = { line, column: col, endLine: this.#line, endColumn: this.#col };
    return value === undefined
      ? { kind, text, loc, start, end: this.#pos }
      : { kind, text, value, loc, start, end: this.#pos };
  }

  #error(message: string, line: number, col: number): BpftraceError {
    return new BpftraceError(message, { line, column: col, endLine: this.#line, endColumn: this.#col });
  }

  #skipBlanks(): void {
    const s = this.source;
    for (;;) {
      const c = s[this.#pos];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') this.#advance();
      else if (c === '/' && s[this.#pos + 1] === '/') {
        while (this.#pos < s.length && s[this.#pos] !== '\n') this.#advance();
      } else if (c === '/' && s[this.#pos + 1] === '*') {
        const line = this.#line;
        const col = this.#col;
        this.#advance();
        this.#advance();
        while (this.#pos < s.length && !(s[this.#pos] === '*' && s[this.#pos + 1] === '/')) this.#advance();
        if (this.#pos >= s.length) throw this.#error('syntax: unterminated comment', line, col);
        this.#advance();
        this.#advance();
      } else return;
    }
  }

  #lex(): Token {
    this.#skipBlanks();
    const s = this.source;
    const start = this.#pos;
    const line = this.#line;
    const col = this.#col;
    if (start >= s.length) return this.#token('eof', '', start, line, col);
    const c = s[start];
    if (c === '"') return this.#string(start, line, col);
    if (/[0-9]/.test(c)) return this.#number(start, line, col);
    if (c === '$' || c === '@') {
      this.#advance();
      while (this.#pos < s.length && IDENT_PART.test(s[this.#pos])) this.#advance();
      const text = s.slice(start, this.#pos);
      if (c === '$' && text.length === 1) throw this.#error("syntax: expected identifier after '$'", line, col);
      return this.#token(c === '$' ? 'var' : 'map', text, start, line, col);
    }
    if (IDENT_START.test(c)) {
      while (this.#pos < s.length && IDENT_PART.test(s[this.#pos])) this.#advance();
      return this.#token('ident', s.slice(start, this.#pos), start, line, col);
    }
    for (const p of PUNCT) {
      if (s.startsWith(p, start)) {
        for (let i = 0; i < p.length; i++) this.#advance();
        return this.#token('punct', p, start, line, col);
      }
    }
    this.#advance();
    throw this.#error(`syntax: invalid character '${c}'`, line, col);
  }

  #number(start: number, line: number, col: number): Token {
    const s = this.source;
    while (this.#pos < s.length && /[0-9A-Za-z_]/.test(s[this.#pos])) this.#advance();
    const text = s.slice(start, this.#pos);
    const digits = text.replace(/_/g, '');
    let value: bigint | undefined;
    if (/^0[xX][0-9a-fA-F]+$/.test(digits) || /^0[bB][01]+$/.test(digits)) value = BigInt(digits);
    else if (/^0[0-7]+$/.test(digits)) value = BigInt(`0o${digits.slice(1)}`);
    else if (/^[0-9]+$/.test(digits)) value = BigInt(digits);
    else {
      const sci = /^([0-9]+)e([0-9]+)$/.exec(digits);
      if (sci) value = BigInt(sci[1]) * 10n ** BigInt(sci[2]);
    }
    if (value === undefined) throw this.#error(`syntax: invalid integer literal '${text}'`, line, col);
    if (value > U64_MAX) throw this.#error(`syntax: integer literal out of range '${text}'`, line, col);
    return this.#token('int', text, start, line, col, value);
  }

  #string(start: number, line: number, col: number): Token {
    const s = this.source;
    this.#advance();
    let out = '';
    for (;;) {
      if (this.#pos >= s.length || s[this.#pos] === '\n') {
        throw this.#error('syntax: unterminated string', line, col);
      }
      const c = s[this.#pos];
      this.#advance();
      if (c === '"') break;
      if (c !== '\\') {
        out += c;
        continue;
      }
      const e = s[this.#pos];
      this.#advance();
      const simple: Record<string, string> = {
        n: '\n',
        t: '\t',
        r: '\r',
        '\\': '\\',
        '"': '"',
        "'": "'",
        a: '\x07',
        b: '\b',
        f: '\f',
        v: '\v',
      };
      if (e in simple) out += simple[e];
      else if (e === 'x' && /[0-9a-fA-F]/.test(s[this.#pos] ?? '')) {
        let hex = '';
        while (hex.length < 2 && /[0-9a-fA-F]/.test(s[this.#pos] ?? '')) {
          hex += s[this.#pos];
          this.#advance();
        }
        out += String.fromCharCode(Number.parseInt(hex, 16));
      } else if (/[0-7]/.test(e)) {
        let oct = e;
        while (oct.length < 3 && /[0-7]/.test(s[this.#pos] ?? '')) {
          oct += s[this.#pos];
          this.#advance();
        }
        const v = Number.parseInt(oct, 8);
        if (v > 255) throw this.#error(`syntax: octal escape sequence out of range '\\${oct}'`, line, col);
        out += String.fromCharCode(v);
      } else throw this.#error(`syntax: invalid escape character '\\${e}'`, line, col);
    }
    return this.#token('string', out, start, line, col);
  }
}

/** Whether a token is the punctuation `p`. */
export function isPunct(t: Token, p: string): boolean {
  return t.kind === 'punct' && t.text === p;
}
