import type { Expr, MapAccess, Stmt } from './ast.js';
import type { AvgState, MapInfo, Value } from './bpf-map.js';
import { BpftraceError } from './bpftrace-error.js';
import { type AggregationKind, type BpfType, compatible, isInteger, typeName, widen } from './bpftrace-type.js';
import { AGGREGATIONS, literal } from './compile-call.js';
import type { CompileContext, Frame } from './compile-context.js';
import { arith, compileEntry, truth } from './compile-expr.js';
import { asInt, compileKeys } from './compile-keys.js';
import { linearBucketIndex, log2BucketIndex } from './hist-buckets.js';

/** What a statement tells its enclosing block: go on, or leave a loop or the probe. */
export const Flow = { NEXT: 0, BREAK: 1, CONTINUE: 2, RETURN: 3 } as const;

type StmtFn = (fr: Frame) => number;

/** Most iterations a `while` loop runs before it is cut short (BPF's verifier bounds every loop). */
export const MAX_LOOP_ITERATIONS = 1_000_000;
/** `unroll`'s bounds, as bpftrace checks them. */
const UNROLL_MIN = 1;
const UNROLL_MAX = 100;

/**
 * Compiles a block into one closure running its statements in order and returning a {@link Flow}.
 *
 * @see bpftrace src/ast/passes/codegen_llvm.cpp (what each statement does)
 */
export function compileBlock(ctx: CompileContext, stmts: readonly Stmt[], inLoop: boolean): StmtFn {
  const fs = stmts.map((s) => orNoted(ctx, () => compileStmt(ctx, s, inLoop), nothing));
  if (fs.length === 1) return fs[0];
  return (fr) => {
    for (let i = 0; i < fs.length; i++) {
      const r = fs[i](fr);
      if (r !== Flow.NEXT) return r;
    }
    return Flow.NEXT;
  };
}

/** What a statement that did not compile runs (the program is refused before it runs anyway). */
const nothing: StmtFn = () => Flow.NEXT;

/**
 * Compiles one part, or notes its mistake in {@link CompileContext.errors} and gives `fallback`, so
 * the parts after it are checked too.
 */
export function orNoted<T>(ctx: CompileContext, compile: () => T, fallback: T): T {
  try {
    return compile();
  } catch (error) {
    if (!(error instanceof BpftraceError)) throw error;
    ctx.errors.push(error);
    return fallback;
  }
}

function compileStmt(ctx: CompileContext, s: Stmt, inLoop: boolean): StmtFn {
  switch (s.kind) {
    case 'expr': {
      const f = ctx.expr(s.expr).f;
      return (fr) => {
        f(fr);
        return Flow.NEXT;
      };
    }
    case 'assign':
      return s.target.kind === 'var' ? assignVar(ctx, s) : assignMap(ctx, s.target, s.op, s.value);
    case 'if': {
      const c = truth(ctx.expr(s.cond), s.cond.loc);
      const a = compileBlock(ctx, s.consequent, inLoop);
      const b = s.otherwise ? compileBlock(ctx, s.otherwise, inLoop) : () => Flow.NEXT;
      return (fr) => (c(fr) ? a(fr) : b(fr));
    }
    case 'unroll': {
      const n = literal(s.count, 0, s.loc);
      if (n < UNROLL_MIN || n > UNROLL_MAX) {
        throw new BpftraceError(`unroll maximum value is ${UNROLL_MAX} and minimum is ${UNROLL_MIN}`, s.count.loc);
      }
      const body = compileBlock(ctx, s.body, inLoop);
      return (fr) => {
        for (let i = 0; i < n; i++) {
          const r = body(fr);
          if (r !== Flow.NEXT) return r;
        }
        return Flow.NEXT;
      };
    }
    case 'while': {
      const c = truth(ctx.expr(s.cond), s.cond.loc);
      const body = compileBlock(ctx, s.body, true);
      return (fr) => {
        for (let i = 0; i < MAX_LOOP_ITERATIONS && c(fr); i++) {
          const r = body(fr);
          if (r === Flow.BREAK) break;
          if (r === Flow.RETURN) return r;
        }
        return Flow.NEXT;
      };
    }
    case 'for':
      return compileFor(ctx, s);
    case 'break':
    case 'continue':
      if (!inLoop) throw new BpftraceError(`'${s.kind}' statement is not allowed outside of a loop`, s.loc);
      return s.kind === 'break' ? () => Flow.BREAK : () => Flow.CONTINUE;
    case 'return':
      return () => Flow.RETURN;
  }
}

function assignVar(ctx: CompileContext, s: Extract<Stmt, { kind: 'assign' }>): StmtFn {
  const target = s.target as Extract<Expr, { kind: 'var' }>;
  if (s.value.kind === 'call' && AGGREGATIONS.has(s.value.name)) {
    throw new BpftraceError(`${s.value.name}() must be assigned directly to a map`, s.value.loc);
  }
  let v = ctx.vars.get(target.name);
  if (s.op !== '=') {
    if (v === undefined) throw new BpftraceError(`Undefined or undeclared variable: ${target.name}`, target.loc);
    const value = ctx.expr(s.value);
    if (!isInteger(v.type) || !isInteger(value.t)) {
      throw new BpftraceError(`Type mismatch for ${target.name}: compound assignment needs integers`, s.loc);
    }
    const slot = v.slot;
    const t = v.type;
    const signed = t.k === 'int' && t.signed;
    const f = arith(s.op, (fr) => fr.vars[slot] as bigint, asInt(value), signed);
    const bits = t.k === 'int' ? t.bits : 64;
    return (fr) => {
      fr.vars[slot] = signed ? BigInt.asIntN(bits, f(fr)) : BigInt.asUintN(bits, f(fr));
      return Flow.NEXT;
    };
  }
  const value = ctx.expr(s.value);
  if (value.t.k === 'none') throw new BpftraceError('Invalid expression for assignment', s.loc);
  if (v === undefined) {
    v = { slot: ctx.vars.size, type: value.t };
    ctx.vars.set(target.name, v);
  } else if (!compatible(v.type, value.t)) {
    throw new BpftraceError(
      `Type mismatch for ${target.name}: trying to assign value of type '${typeName(value.t)}' when variable already has a type '${typeName(v.type)}'`,
      s.loc,
    );
  } else v.type = widen(v.type, value.t);
  const slot = v.slot;
  const f = value.f;
  return (fr) => {
    fr.vars[slot] = f(fr);
    return Flow.NEXT;
  };
}

/** Records (first pass) or checks a map's value type against what an assignment stores. */
function setValueType(info: MapInfo, t: BpfType, loc: Stmt['loc'], args?: readonly number[]): void {
  if (info.value === undefined) {
    info.value = t;
    if (args) info.args = args;
    return;
  }
  if (!compatible(info.value, t)) {
    throw new BpftraceError(
      `Type mismatch for ${info.name}: trying to assign value of type '${typeName(t)}' when map already has a type '${typeName(info.value)}'`,
      loc,
    );
  }
  if (args && info.args && args.join() !== info.args.join()) {
    throw new BpftraceError(`Different ${t.k === 'agg' ? t.agg : ''} arguments for ${info.name}`, loc);
  }
  if (info.value.k !== 'agg') info.value = widen(info.value, t);
  else if (t.k === 'agg' && !t.signed && info.value.signed) info.value = t;
}

function assignMap(ctx: CompileContext, target: MapAccess, op: string, valueExpr: Expr): StmtFn {
  const keys = compileKeys(ctx, target);
  const info = ctx.maps.get(target.name) as MapInfo;
  const loc = { ...target.loc, endLine: valueExpr.loc.endLine, endColumn: valueExpr.loc.endColumn };
  if (op === '=' && valueExpr.kind === 'call' && AGGREGATIONS.has(valueExpr.name)) {
    return aggregate(ctx, target, keys, info, valueExpr);
  }
  const value = ctx.expr(valueExpr);
  if (value.t.k === 'none') throw new BpftraceError('Invalid expression for assignment', loc);
  const entry = compileEntry(ctx, target, keys);
  if (op !== '=') {
    if (info.value === undefined) info.value = value.t;
    if (!isInteger(info.value) || !isInteger(value.t)) {
      throw new BpftraceError(`Type mismatch for ${target.name}: compound assignment needs integers`, loc);
    }
    const t = info.value;
    const signed = t.k === 'int' && t.signed;
    let cur: { value: unknown } = { value: 0n };
    const f = arith(op, () => cur.value as bigint, asInt(value), signed);
    return (fr) => {
      cur = entry(fr);
      cur.value = f(fr);
      return Flow.NEXT;
    };
  }
  setValueType(info, value.t, loc);
  const f = value.f;
  return (fr) => {
    const v = f(fr);
    entry(fr).value = v;
    return Flow.NEXT;
  };
}

function aggregate(
  ctx: CompileContext,
  target: MapAccess,
  keys: ReturnType<typeof compileKeys>,
  info: MapInfo,
  call: Extract<Expr, { kind: 'call' }>,
): StmtFn {
  const agg = call.name as AggregationKind;
  const want = agg === 'count' ? 0 : agg === 'hist' ? [1, 2] : agg === 'lhist' ? 4 : 1;
  const n = call.args.length;
  if (Array.isArray(want) ? !want.includes(n) : n !== want) {
    const expect = Array.isArray(want) ? want.join(' or ') : String(want);
    throw new BpftraceError(
      `${agg}() requires ${expect} argument${expect === '1' ? '' : 's'} (${n} provided)`,
      call.loc,
    );
  }
  const arg = n > 0 ? ctx.expr(call.args[0]) : undefined;
  if (arg && !isInteger(arg.t)) {
    throw new BpftraceError(`${agg}() expects an integer argument (${typeName(arg.t)} provided)`, call.args[0].loc);
  }
  const signed = arg !== undefined && arg.t.k === 'int' && arg.t.signed;
  const params =
    agg === 'hist'
      ? [literal(call.args[1], 0, call.loc)]
      : agg === 'lhist'
        ? call.args.slice(1).map((a) => literal(a, 0, call.loc))
        : undefined;
  if (agg === 'hist' && (params![0] < 0 || params![0] > 5))
    throw new BpftraceError('hist() second argument must be between 0 and 5', call.loc);
  if (agg === 'lhist' && (params![2] <= 0 || params![1] <= params![0])) {
    throw new BpftraceError('lhist() step must be >= 1 and max must be greater than min', call.loc);
  }
  // bpftrace points at the aggregation call, not the whole assignment.
  setValueType(info, { k: 'agg', agg, signed }, call.loc, params);
  const entry = compileEntry(ctx, target, keys);
  const v = arg ? asInt(arg) : () => 0n;
  switch (agg) {
    case 'count':
      return (fr) => {
        const e = entry(fr);
        e.value = (e.value as number) + 1;
        return Flow.NEXT;
      };
    case 'sum':
      return (fr) => {
        const x = v(fr);
        const e = entry(fr);
        e.value = BigInt.asIntN(64, (e.value as bigint) + x);
        return Flow.NEXT;
      };
    case 'min':
    case 'max': {
      const isMax = agg === 'max';
      return (fr) => {
        const x = v(fr);
        const e = entry(fr);
        const cur = e.value as bigint | undefined;
        if (cur === undefined || (isMax ? x > cur : x < cur)) e.value = x;
        return Flow.NEXT;
      };
    }
    case 'avg':
    case 'stats':
      return (fr) => {
        const x = v(fr);
        const s = entry(fr).value as AvgState;
        s.count++;
        s.total = BigInt.asIntN(64, s.total + x);
        return Flow.NEXT;
      };
    case 'hist': {
      const k = params![0];
      return (fr) => {
        const x = v(fr);
        (entry(fr).value as Float64Array)[log2BucketIndex(signed ? x : BigInt.asUintN(64, x), k)]++;
        return Flow.NEXT;
      };
    }
    case 'lhist': {
      const [min, max, step] = params!;
      return (fr) => {
        const x = v(fr);
        (entry(fr).value as Float64Array)[linearBucketIndex(x, min, max, step)]++;
        return Flow.NEXT;
      };
    }
  }
}

function compileFor(ctx: CompileContext, s: Extract<Stmt, { kind: 'for' }>): StmtFn {
  const info = ctx.maps.get(s.map.name);
  if (info?.value === undefined) {
    if (ctx.strict) throw new BpftraceError(`Undefined map: ${s.map.name}`, s.map.loc);
  }
  const keys = info?.keys ?? [];
  if (ctx.strict && keys.length === 0)
    throw new BpftraceError('Maps used in for-loops must have explicit keys', s.map.loc);
  const valueT: BpfType =
    info?.value?.k === 'agg'
      ? { k: 'int', bits: 64, signed: info.value.signed }
      : (info?.value ?? { k: 'int', bits: 64, signed: true });
  const keyT: BpfType = keys.length === 1 ? keys[0] : { k: 'tuple', elems: keys };
  if (ctx.vars.has(s.variable.name))
    throw new BpftraceError(`Loop declaration shadows existing variable: ${s.variable.name}`, s.variable.loc);
  const slot = ctx.vars.size;
  ctx.vars.set(s.variable.name, { slot, type: { k: 'tuple', elems: [keyT, valueT] } });
  const body = compileBlock(ctx, s.body, true);
  ctx.vars.delete(s.variable.name);
  const map = ctx.mapOf(s.map.name);
  const single = keys.length === 1;
  return (fr) => {
    for (const e of [...map.entries.values()]) {
      const v = e.value;
      const value: Value =
        typeof v === 'number'
          ? BigInt(v)
          : typeof v === 'object' && v !== null && 'total' in v
            ? (v as AvgState).total / BigInt((v as AvgState).count || 1)
            : (v as Value);
      fr.vars[slot] = [single ? e.key[0] : e.key, value];
      const r = body(fr);
      if (r === Flow.BREAK) break;
      if (r === Flow.RETURN) return r;
    }
    return Flow.NEXT;
  };
}
