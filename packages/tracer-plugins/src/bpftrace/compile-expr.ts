import type { Expr, MapAccess } from './ast.js';
import { keyId, type MapEntry, type Value } from './bpf-map.js';
import { BpftraceError } from './bpftrace-error.js';
import {
  BOOL,
  type BpfType,
  compatible,
  INT64,
  isInteger,
  isIntegerAggregation,
  literalType,
  typeName,
  UINT64,
  widen,
} from './bpftrace-type.js';
import { compileBuiltin } from './builtin-vars.js';
import { compileCall } from './compile-call.js';
import type { CompileContext, Compiled, Frame } from './compile-context.js';
import { asInt, compileKeys } from './compile-keys.js';
import { average } from './render-map.js';

const ARITH = new Set(['+', '-', '*', '/', '%', '&', '|', '^', '<<', '>>']);
const COMPARE = new Set(['==', '!=', '<', '<=', '>', '>=']);

/**
 * Compiles an expression once into a closure over a {@link Frame}, checking types as bpftrace's type
 * checker does. Integers are 64-bit (bigint) and wrap at their type's width; division by zero gives
 * 0 and `%` by zero the dividend, as BPF's ALU does.
 *
 * @see bpftrace src/ast/passes/types/type_checker.cpp; Documentation/bpf/standardization/instruction-set.rst
 */
export function compileExpr(ctx: CompileContext, e: Expr): Compiled {
  switch (e.kind) {
    case 'int': {
      const v = e.value;
      return { t: literalType(v), f: () => v };
    }
    case 'string': {
      const v = e.value;
      return { t: { k: 'string', size: v.length + 1 }, f: () => v };
    }
    case 'bool': {
      const v = e.value;
      return { t: BOOL, f: () => v };
    }
    case 'builtin':
      return compileBuiltin(ctx, e.name, e.loc);
    case 'var': {
      const v = ctx.vars.get(e.name);
      if (v === undefined) throw new BpftraceError(`Undefined or undeclared variable: ${e.name}`, e.loc);
      const slot = v.slot;
      return { t: v.type, f: (fr) => fr.vars[slot] as Value };
    }
    case 'map':
      return compileMapRead(ctx, e);
    case 'call':
      return compileCall(ctx, e);
    case 'binary':
      return compileBinary(ctx, e);
    case 'unary':
      return compileUnary(ctx, e);
    case 'cast': {
      const o = ctx.expr(e.operand);
      if (!isInteger(o.t)) throw new BpftraceError(`Cannot cast from "${typeName(o.t)}" to "${e.type}"`, e.loc);
      const bits = Number(/\d+/.exec(e.type)?.[0]) as 8 | 16 | 32 | 64;
      const signed = !e.type.startsWith('u');
      const to: BpfType = { k: 'int', bits, signed };
      const f = asInt(o);
      if (e.pointer > 0) return { t: { k: 'ptr', to }, f: (fr) => BigInt.asUintN(64, f(fr)) };
      return { t: to, f: signed ? (fr) => BigInt.asIntN(bits, f(fr)) : (fr) => BigInt.asUintN(bits, f(fr)) };
    }
    case 'ternary': {
      const c = truth(ctx.expr(e.cond), e.loc);
      const a = ctx.expr(e.consequent);
      const b = ctx.expr(e.otherwise);
      if (!compatible(a.t, b.t)) {
        throw new BpftraceError(
          `Ternary operator must return the same type: have '${typeName(a.t)}' and '${typeName(b.t)}'`,
          e.loc,
        );
      }
      const af = a.f;
      const bf = b.f;
      return { t: widen(a.t, b.t), f: (fr) => (c(fr) ? af(fr) : bf(fr)) };
    }
    case 'tuple': {
      const elems = e.elems.map((x) => ctx.expr(x));
      const fs = elems.map((x) => x.f);
      return { t: { k: 'tuple', elems: elems.map((x) => x.t) }, f: (fr) => fs.map((f) => f(fr)) };
    }
    case 'field': {
      const o = ctx.expr(e.target);
      if (o.t.k !== 'tuple')
        throw new BpftraceError(`Can not access index '${e.index}' on expression of type '${typeName(o.t)}'`, e.loc);
      if (e.index >= o.t.elems.length) {
        throw new BpftraceError(`Invalid tuple index: ${e.index}. Found ${o.t.elems.length} elements in tuple.`, e.loc);
      }
      const i = e.index;
      const f = o.f;
      return { t: o.t.elems[i], f: (fr) => (f(fr) as readonly Value[])[i] };
    }
    case 'incdec':
      return compileIncDec(ctx, e);
  }
}

/** A condition's closure: integers are true when non-zero. */
export function truth(c: Compiled, loc: Expr['loc']): (fr: Frame) => boolean {
  const f = c.f;
  if (c.t.k === 'bool') return f as (fr: Frame) => boolean;
  if (!isInteger(c.t)) throw new BpftraceError(`Invalid condition: ${typeName(c.t)}`, loc);
  return (fr) => (f(fr) as bigint) !== 0n;
}

/**
 * A closure finding (or creating) a map's entry for the keys of `m`: one key is its own identity (no
 * allocation for an existing entry); several are evaluated into a reused scratch array.
 */
export function compileEntry(ctx: CompileContext, m: MapAccess, keys: readonly Compiled[]): (fr: Frame) => MapEntry {
  const map = ctx.mapOf(m.name);
  const entries = map.entries;
  if (keys.length === 0) return () => map.entry(0, EMPTY);
  if (keys.length === 1 && (keys[0].t.k === 'int' || keys[0].t.k === 'string' || keys[0].t.k === 'ksym')) {
    const k = keys[0].f;
    return (fr) => {
      const v = k(fr);
      return entries.get(v) ?? map.entry(v, [v]);
    };
  }
  const fs = keys.map((k) => k.f);
  const scratch: Value[] = new Array(fs.length);
  return (fr) => {
    for (let i = 0; i < fs.length; i++) scratch[i] = fs[i](fr);
    return map.entry(keyId(scratch), scratch);
  };
}

const EMPTY: readonly Value[] = Object.freeze([]);

function compileMapRead(ctx: CompileContext, m: MapAccess): Compiled {
  const keys = compileKeys(ctx, m);
  const info = ctx.maps.get(m.name);
  const t = info?.value;
  if (t === undefined) {
    if (ctx.strict) throw new BpftraceError(`Undefined map: ${m.name}`, m.loc);
    return { t: INT64, f: () => 0n };
  }
  const map = ctx.mapOf(m.name);
  const fs = keys.map((k) => k.f);
  const scratch: Value[] = new Array(fs.length);
  const lookup = (fr: Frame): MapEntry | undefined => {
    for (let i = 0; i < fs.length; i++) scratch[i] = fs[i](fr);
    return map.entries.get(keyId(scratch));
  };
  if (t.k !== 'agg') {
    const zero = map.initialValue() as Value;
    return { t, f: (fr) => (lookup(fr)?.value as Value | undefined) ?? zero };
  }
  if (!isIntegerAggregation(t)) return { t, f: () => 0n };
  const it: BpfType = t.signed ? INT64 : UINT64;
  switch (t.agg) {
    case 'count':
      return { t: UINT64, f: (fr) => BigInt((lookup(fr)?.value as number | undefined) ?? 0) };
    case 'avg':
      return {
        t: it,
        f: (fr) => {
          const e = lookup(fr);
          return e ? average(e.value as { count: number; total: bigint }) : 0n;
        },
      };
    default:
      return { t: it, f: (fr) => (lookup(fr)?.value as bigint | undefined) ?? 0n };
  }
}

function compileBinary(ctx: CompileContext, e: Extract<Expr, { kind: 'binary' }>): Compiled {
  const a = ctx.expr(e.left);
  const b = ctx.expr(e.right);
  if (e.op === '&&' || e.op === '||') {
    const x = truth(a, e.left.loc);
    const y = truth(b, e.right.loc);
    return { t: BOOL, f: e.op === '&&' ? (fr) => x(fr) && y(fr) : (fr) => x(fr) || y(fr) };
  }
  const ai = isInteger(a.t) || isIntegerAggregation(a.t);
  const bi = isInteger(b.t) || isIntegerAggregation(b.t);
  if (COMPARE.has(e.op)) {
    if (a.t.k === 'string' && b.t.k === 'string') return { t: BOOL, f: compareStrings(e.op, a.f, b.f) };
    if (!ai || !bi)
      throw new BpftraceError(`Type mismatch for '${e.op}': comparing ${typeName(a.t)} with ${typeName(b.t)}`, e.loc);
    const unsigned = isUnsigned(a.t) || isUnsigned(b.t);
    return { t: BOOL, f: compareInts(e.op, asInt(a), asInt(b), unsigned) };
  }
  if (!ARITH.has(e.op)) throw new BpftraceError(`Unknown operator '${e.op}'`, e.loc);
  if (!ai || !bi) {
    throw new BpftraceError(`Type mismatch for '${e.op}': comparing ${typeName(a.t)} with ${typeName(b.t)}`, e.loc);
  }
  const signed = !isUnsigned(a.t) && !isUnsigned(b.t);
  const t: BpfType = signed ? INT64 : UINT64;
  return { t, f: arith(e.op, asInt(a), asInt(b), signed) };
}

function isUnsigned(t: BpfType): boolean {
  return (t.k === 'int' && !t.signed) || t.k === 'ptr' || (t.k === 'agg' && !t.signed);
}

type IntFn = (fr: Frame) => bigint;

/** An arithmetic closure wrapping its result to 64 bits (signed or not). */
export function arith(op: string, x: IntFn, y: IntFn, signed: boolean): IntFn {
  const wrap = signed ? (v: bigint) => BigInt.asIntN(64, v) : (v: bigint) => BigInt.asUintN(64, v);
  switch (op) {
    case '+':
      return (fr) => wrap(x(fr) + y(fr));
    case '-':
      return (fr) => wrap(x(fr) - y(fr));
    case '*':
      return (fr) => wrap(x(fr) * y(fr));
    case '/':
      return (fr) => {
        const d = y(fr);
        return d === 0n ? 0n : wrap(x(fr) / d);
      };
    case '%':
      return (fr) => {
        const n = x(fr);
        const d = y(fr);
        return d === 0n ? n : wrap(n % d);
      };
    case '&':
      return (fr) => wrap(x(fr) & y(fr));
    case '|':
      return (fr) => wrap(x(fr) | y(fr));
    case '^':
      return (fr) => wrap(x(fr) ^ y(fr));
    case '<<':
      return (fr) => wrap(x(fr) << (y(fr) & 63n));
    default:
      // Arithmetic shift for signed values, logical for unsigned.
      return (fr) => wrap((signed ? x(fr) : BigInt.asUintN(64, x(fr))) >> (y(fr) & 63n));
  }
}

function compareInts(op: string, x: IntFn, y: IntFn, unsigned: boolean): (fr: Frame) => boolean {
  const a = unsigned ? (fr: Frame) => BigInt.asUintN(64, x(fr)) : x;
  const b = unsigned ? (fr: Frame) => BigInt.asUintN(64, y(fr)) : y;
  switch (op) {
    case '==':
      return (fr) => a(fr) === b(fr);
    case '!=':
      return (fr) => a(fr) !== b(fr);
    case '<':
      return (fr) => a(fr) < b(fr);
    case '<=':
      return (fr) => a(fr) <= b(fr);
    case '>':
      return (fr) => a(fr) > b(fr);
    default:
      return (fr) => a(fr) >= b(fr);
  }
}

function compareStrings(op: string, x: (fr: Frame) => Value, y: (fr: Frame) => Value): (fr: Frame) => boolean {
  switch (op) {
    case '==':
      return (fr) => x(fr) === y(fr);
    case '!=':
      return (fr) => x(fr) !== y(fr);
    case '<':
      return (fr) => (x(fr) as string) < (y(fr) as string);
    case '<=':
      return (fr) => (x(fr) as string) <= (y(fr) as string);
    case '>':
      return (fr) => (x(fr) as string) > (y(fr) as string);
    default:
      return (fr) => (x(fr) as string) >= (y(fr) as string);
  }
}

function compileUnary(ctx: CompileContext, e: Extract<Expr, { kind: 'unary' }>): Compiled {
  const o = ctx.expr(e.operand);
  if (e.op === '!') {
    const t = truth(o, e.loc);
    return { t: BOOL, f: (fr) => !t(fr) };
  }
  if (e.op === '*') {
    if (o.t.k !== 'ptr' || o.t.to.k !== 'int') {
      throw new BpftraceError(`Can not dereference type '${typeName(o.t)}'`, e.loc);
    }
    const to = o.t.to;
    const bytes = to.bits / 8;
    const rt = ctx.rt;
    const buf = new Uint8Array(8);
    const view = new DataView(buf.buffer);
    const p = o.f as IntFn;
    // A failed read gives 0, as bpf_probe_read_kernel() zeroes its buffer on a fault.
    return {
      t: to,
      f: (fr) => {
        buf.fill(0);
        if (!rt.readMemory(fr.cpu, p(fr), bytes, buf)) return 0n;
        const u = view.getBigUint64(0, true);
        return to.signed ? BigInt.asIntN(to.bits, u) : BigInt.asUintN(to.bits, u);
      },
    };
  }
  if (!isInteger(o.t))
    throw new BpftraceError(`The ${e.op} operator can not be used on expressions of type '${typeName(o.t)}'`, e.loc);
  const x = asInt(o);
  const t = o.t.k === 'int' ? o.t : INT64;
  const signed = t.k === 'int' && t.signed;
  const bits = t.k === 'int' ? t.bits : 64;
  const wrap = signed ? (v: bigint) => BigInt.asIntN(bits, v) : (v: bigint) => BigInt.asUintN(bits, v);
  return e.op === '-' ? { t, f: (fr) => wrap(-x(fr)) } : { t, f: (fr) => wrap(~x(fr)) };
}

function compileIncDec(ctx: CompileContext, e: Extract<Expr, { kind: 'incdec' }>): Compiled {
  const delta = e.op === '++' ? 1n : -1n;
  const target = e.target;
  if (target.kind === 'var') {
    const v = ctx.vars.get(target.name);
    if (v === undefined) throw new BpftraceError(`Undefined or undeclared variable: ${target.name}`, target.loc);
    if (v.type.k !== 'int')
      throw new BpftraceError(`The ${e.op} operator must be applied to a map or variable of type integer`, e.loc);
    const slot = v.slot;
    const t = v.type;
    const wrap = t.signed ? (x: bigint) => BigInt.asIntN(t.bits, x) : (x: bigint) => BigInt.asUintN(t.bits, x);
    return {
      t,
      f: (fr) => {
        const old = fr.vars[slot] as bigint;
        const now = wrap(old + delta);
        fr.vars[slot] = now;
        return e.prefix ? now : old;
      },
    };
  }
  const keys = compileKeys(ctx, target);
  const info = ctx.maps.get(target.name)!;
  if (info.value === undefined) info.value = INT64;
  if (info.value.k !== 'int') {
    throw new BpftraceError(`The ${e.op} operator must be applied to a map or variable of type integer`, e.loc);
  }
  const entry = compileEntry(ctx, target, keys);
  const t = info.value;
  return {
    t,
    f: (fr) => {
      const en = entry(fr);
      const old = en.value as bigint;
      const now = t.signed ? BigInt.asIntN(64, old + delta) : BigInt.asUintN(64, old + delta);
      en.value = now;
      return e.prefix ? now : old;
    },
  };
}
