import type { SourceLocation } from './source-location.js';

/** The integer types a cast names (`(uint32)x`, `(int64 *)arg1`). */
export type IntTypeName = 'int8' | 'int16' | 'int32' | 'int64' | 'uint8' | 'uint16' | 'uint32' | 'uint64';

/** An expression, as bpftrace's AST has them. */
export type Expr =
  | { readonly kind: 'int'; readonly value: bigint; readonly loc: SourceLocation }
  | { readonly kind: 'string'; readonly value: string; readonly loc: SourceLocation }
  | { readonly kind: 'bool'; readonly value: boolean; readonly loc: SourceLocation }
  | { readonly kind: 'builtin'; readonly name: string; readonly loc: SourceLocation }
  | { readonly kind: 'var'; readonly name: string; readonly loc: SourceLocation }
  | MapAccess
  | { readonly kind: 'call'; readonly name: string; readonly args: readonly Expr[]; readonly loc: SourceLocation }
  | {
      readonly kind: 'binary';
      readonly op: string;
      readonly left: Expr;
      readonly right: Expr;
      readonly loc: SourceLocation;
    }
  | { readonly kind: 'unary'; readonly op: '!' | '~' | '-' | '*'; readonly operand: Expr; readonly loc: SourceLocation }
  | {
      readonly kind: 'cast';
      readonly type: IntTypeName;
      /** `*`s after the type name: 0 for a value cast, 1 for `(uint64 *)`. */
      readonly pointer: number;
      readonly operand: Expr;
      readonly loc: SourceLocation;
    }
  | {
      readonly kind: 'ternary';
      readonly cond: Expr;
      readonly consequent: Expr;
      readonly otherwise: Expr;
      readonly loc: SourceLocation;
    }
  | { readonly kind: 'tuple'; readonly elems: readonly Expr[]; readonly loc: SourceLocation }
  | { readonly kind: 'field'; readonly target: Expr; readonly index: number; readonly loc: SourceLocation }
  | {
      readonly kind: 'incdec';
      readonly op: '++' | '--';
      readonly prefix: boolean;
      readonly target: VarOrMap;
      readonly loc: SourceLocation;
    };

/** `@name` or `@name[k1, k2]` (`keys` empty for a scalar map). */
export interface MapAccess {
  readonly kind: 'map';
  readonly name: string;
  readonly keys: readonly Expr[];
  /** Where the keys are written (`[k1, k2]`), for argument-mismatch errors. */
  readonly loc: SourceLocation;
}

/** What an assignment or `++` may change. */
export type VarOrMap = Extract<Expr, { kind: 'var' }> | MapAccess;

/** A statement of an action block. */
export type Stmt =
  | { readonly kind: 'expr'; readonly expr: Expr; readonly loc: SourceLocation }
  | {
      readonly kind: 'assign';
      readonly target: VarOrMap;
      /** `=` or a compound operator's arithmetic (`+` for `+=`). */
      readonly op: string;
      readonly value: Expr;
      readonly loc: SourceLocation;
    }
  | {
      readonly kind: 'if';
      readonly cond: Expr;
      readonly consequent: readonly Stmt[];
      readonly otherwise: readonly Stmt[] | undefined;
      readonly loc: SourceLocation;
    }
  | { readonly kind: 'unroll'; readonly count: Expr; readonly body: readonly Stmt[]; readonly loc: SourceLocation }
  | { readonly kind: 'while'; readonly cond: Expr; readonly body: readonly Stmt[]; readonly loc: SourceLocation }
  | {
      readonly kind: 'for';
      readonly variable: Extract<Expr, { kind: 'var' }>;
      readonly map: MapAccess;
      readonly body: readonly Stmt[];
      readonly loc: SourceLocation;
    }
  | { readonly kind: 'break' | 'continue' | 'return'; readonly loc: SourceLocation };

/** The probe types int3 attaches. */
export type ProbeProvider = 'kprobe' | 'kretprobe' | 'begin' | 'end' | 'interval' | 'profile';

/** One attach point of a probe, its text split as bpftrace splits it. */
export interface AttachPoint {
  readonly provider: ProbeProvider;
  /** The text as written (`k:vfs_read`), and its canonical form (`kprobe:vfs_read`) for `probe`. */
  readonly text: string;
  readonly canonical: string;
  /** kprobe/kretprobe: the module of `MOD:FUNC`. */
  readonly module?: string | undefined;
  /** kprobe/kretprobe: the function or glob. */
  readonly func?: string;
  /** kprobe: `+OFF`. */
  readonly offset?: number | undefined;
  /** interval/profile: the period in ns. */
  readonly periodNs?: number;
  readonly loc: SourceLocation;
}

/** A probe: its attach points, its predicate, its action block. */
export interface Probe {
  readonly attachPoints: readonly AttachPoint[];
  readonly predicate: Expr | undefined;
  readonly body: readonly Stmt[];
  readonly loc: SourceLocation;
}

/** A whole program: its probes in order. */
export interface Program {
  readonly probes: readonly Probe[];
}
