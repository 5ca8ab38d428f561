import { PT_REGS_OFFSET, type PtRegName } from '@int3/kernel';
import type { Expr, MapAccess } from './ast.js';
import { keyId, type Value } from './bpf-map.js';
import { BpftraceError } from './bpftrace-error.js';
import { BOOL, INT64, isInteger, NONE, typeName, UINT64 } from './bpftrace-type.js';
import type { CompileContext, Compiled, Frame } from './compile-context.js';
import { asInt, compileKeys } from './compile-keys.js';
import { formatPrintf, parsePrintfFormat } from './printf-format.js';
import { renderMap } from './render-map.js';
import type { SourceLocation } from './source-location.js';

type Call = Extract<Expr, { kind: 'call' }>;

/** The aggregations, which only a map assignment may call (`@x = count()`). */
export const AGGREGATIONS = new Set(['count', 'sum', 'avg', 'min', 'max', 'stats', 'hist', 'lhist']);

/** Longest string `str()` reads (bpftrace's default `max_strlen`). */
const MAX_STRLEN = 64;

/**
 * A call of one of bpftrace's functions, compiled: printf, print, time, str, ksym, kaddr, reg, exit,
 * has_key, len, delete, clear, zero. An unknown name, an aggregation outside a map assignment, or
 * arguments of the wrong kind are errors as bpftrace words them.
 *
 * @see bpftrace docs/stdlib.md
 */
export function compileCall(ctx: CompileContext, e: Call): Compiled {
  const { rt, state } = ctx;
  const args = e.args;
  if (AGGREGATIONS.has(e.name)) {
    throw new BpftraceError(`${e.name}() must be assigned directly to a map`, e.loc);
  }
  switch (e.name) {
    case 'printf': {
      const [fmt, ...rest] = args;
      if (fmt?.kind !== 'string')
        throw new BpftraceError('printf() expects a string literal as its first argument', e.loc);
      const vals = rest.map((a) => ctx.expr(a));
      const format = parsePrintfFormat(
        fmt.value,
        vals.map((v) => v.t),
        e.loc,
      );
      const fs = vals.map((v) => v.f);
      const scratch: Value[] = new Array(fs.length);
      return none((fr) => {
        for (let i = 0; i < fs.length; i++) scratch[i] = fs[i](fr);
        state.out.printf(formatPrintf(format, scratch));
      });
    }
    case 'print': {
      const target = args[0];
      if (target === undefined || args.length > 3) throw argCount(e, '1 to 3');
      if (target.kind === 'map' && target.keys.length === 0) {
        const top = literal(args[1], 0, e.loc);
        const div = literal(args[2], 1, e.loc);
        if (ctx.strict && ctx.maps.get(target.name)?.value === undefined) {
          throw new BpftraceError(`Undefined map: ${target.name}`, target.loc);
        }
        const map = ctx.mapOf(target.name);
        return none(() => state.out.map(renderMap(map, top, div, true)));
      }
      if (args.length > 1) throw new BpftraceError('Non-map print() only takes 1 argument', e.loc);
      const v = ctx.expr(target);
      const f = v.f;
      const t = v.t;
      return none((fr) => state.out.value(f(fr), t));
    }
    case 'time': {
      const fmt = args[0];
      if (fmt !== undefined && fmt.kind !== 'string') throw new BpftraceError('time() expects a string literal', e.loc);
      const pattern = fmt?.value ?? '%H:%M:%S\n';
      return none((fr) => state.out.time(strftime(pattern, rt.now(fr.cpu))));
    }
    case 'str': {
      if (args.length < 1 || args.length > 2) throw argCount(e, '1 or 2');
      const p = integer(ctx, args[0], e);
      const max = Math.min(literal(args[1], MAX_STRLEN, e.loc), MAX_STRLEN);
      // bpf_probe_read_kernel_str(): at most max - 1 bytes and the NUL; an unmapped address reads as "".
      return { t: { k: 'string', size: max }, f: (fr) => rt.readString(fr.cpu, p(fr), max - 1) ?? '' };
    }
    case 'ksym': {
      if (args.length !== 1) throw argCount(e, '1');
      const a = integer(ctx, args[0], e);
      return {
        t: { k: 'ksym' },
        f: (fr) => {
          const addr = a(fr);
          return rt.functionAt(addr)?.name ?? `0x${addr.toString(16)}`;
        },
      };
    }
    case 'kaddr': {
      const name = args[0];
      if (args.length !== 1 || name.kind !== 'string')
        throw new BpftraceError('kaddr() expects a string literal', e.loc);
      const addr = rt.addressOf(name.value);
      if (addr === undefined) throw new BpftraceError(`Failed to resolve kernel symbol: ${name.value}`, e.loc);
      return { t: UINT64, f: () => addr };
    }
    case 'reg': {
      const name = args[0];
      if (args.length !== 1 || name.kind !== 'string') throw new BpftraceError('reg() expects a string literal', e.loc);
      if (!(name.value in PT_REGS_OFFSET)) {
        throw new BpftraceError(`'${name.value}' is not a valid register on this architecture (x86_64)`, e.loc);
      }
      const r = name.value as PtRegName;
      return { t: UINT64, f: (fr) => rt.reg(fr.cpu, r) };
    }
    case 'exit': {
      // exit([int code]): the run ends as if SIGTERM came; `end` probes still run, maps print, and
      // bpftrace exits with the code (0 without one). The first exit() of a run decides the code.
      if (args.length > 1) throw argCount(e, '0 or 1');
      const code = args.length === 1 ? integer(ctx, args[0], e) : undefined;
      return none((fr) => {
        if (state.exited) return;
        state.exited = true;
        state.exitCode = code === undefined ? 0 : Number(BigInt.asUintN(8, code(fr)));
      });
    }
    case 'has_key': {
      const m = mapArg(ctx, args[0], e, 'has_key()');
      const info = ctx.maps.get(m.name);
      if (info?.keys?.length === 0) {
        throw new BpftraceError('call to has_key() expects a map with explicit keys (non-scalar map)', e.loc);
      }
      const key = args.slice(1);
      if (key.length !== 1) throw argCount(e, '2');
      const keys = compileKeys(ctx, { kind: 'map', name: m.name, keys: keyList(key[0]), loc: e.loc });
      const map = ctx.mapOf(m.name);
      const fs = keys.map((k) => k.f);
      const scratch: Value[] = new Array(fs.length);
      return {
        t: BOOL,
        f: (fr) => {
          for (let i = 0; i < fs.length; i++) scratch[i] = fs[i](fr);
          return map.entries.has(keyId(scratch));
        },
      };
    }
    case 'len': {
      const m = mapArg(ctx, args[0], e, 'len()');
      if (ctx.maps.get(m.name)?.keys?.length === 0) {
        throw new BpftraceError('call to len() expects a map with explicit keys (non-scalar map)', e.loc);
      }
      const map = ctx.mapOf(m.name);
      return { t: INT64, f: () => BigInt(map.entries.size) };
    }
    case 'delete': {
      const first = args[0];
      if (first?.kind !== 'map') throw new BpftraceError('delete() expects a map argument', e.loc);
      const keyExprs = first.keys.length > 0 ? first.keys : args.slice(1).flatMap(keyList);
      const keys = compileKeys(ctx, { kind: 'map', name: first.name, keys: keyExprs, loc: first.loc });
      const map = ctx.mapOf(first.name);
      const fs = keys.map((k) => k.f);
      const scratch: Value[] = new Array(fs.length);
      return none((fr) => {
        for (let i = 0; i < fs.length; i++) scratch[i] = fs[i](fr);
        map.entries.delete(keyId(scratch));
      });
    }
    case 'clear':
    case 'zero': {
      const m = mapArg(ctx, args[0], e, `${e.name}()`);
      const map = ctx.mapOf(m.name);
      if (e.name === 'clear') return none(() => map.entries.clear());
      return none(() => {
        for (const en of map.entries.values()) en.value = map.initialValue();
      });
    }
  }
  throw new BpftraceError(`Unknown function: '${e.name}'`, e.loc);
}

function none(f: (fr: Frame) => void): Compiled {
  return { t: NONE, f: f as unknown as (fr: Frame) => Value };
}

function argCount(e: Call, n: string): BpftraceError {
  return new BpftraceError(`${e.name}() requires ${n} arguments (${e.args.length} provided)`, e.loc);
}

function integer(ctx: CompileContext, a: Expr, e: Call): (fr: Frame) => bigint {
  const c = ctx.expr(a);
  if (!isInteger(c.t)) {
    throw new BpftraceError(`${e.name}() expects an integer argument (${typeName(c.t)} provided)`, a.loc);
  }
  return asInt(c);
}

/** A non-negative integer literal argument, or `fallback` when absent. */
export function literal(a: Expr | undefined, fallback: number, loc: SourceLocation): number {
  if (a === undefined) return fallback;
  if (a.kind !== 'int') throw new BpftraceError('expected an integer literal', a.loc ?? loc);
  return Number(a.value);
}

function mapArg(ctx: CompileContext, a: Expr | undefined, e: Call, fn: string): MapAccess {
  if (a?.kind !== 'map' || a.keys.length > 0) throw new BpftraceError(`${fn} expects a map argument`, e.loc);
  if (ctx.strict && ctx.maps.get(a.name)?.value === undefined)
    throw new BpftraceError(`Undefined map: ${a.name}`, a.loc);
  return a;
}

/** A key argument: a tuple literal names several keys (`has_key(@m, (1, 2))`). */
function keyList(a: Expr): Expr[] {
  return a.kind === 'tuple' ? [...a.elems] : [a];
}

/**
 * strftime on virtual time: the clock starts at the epoch (1970-01-01 00:00:00 UTC) when the machine
 * boots, so `time()` prints the same in every run and in a replay.
 */
function strftime(fmt: string, ns: number): string {
  const d = new Date(Math.floor(ns / 1e6));
  const two = (n: number) => String(n).padStart(2, '0');
  return fmt.replace(/%([HMSYmdjfT%])/g, (_m, c: string) => {
    switch (c) {
      case 'H':
        return two(d.getUTCHours());
      case 'M':
        return two(d.getUTCMinutes());
      case 'S':
        return two(d.getUTCSeconds());
      case 'Y':
        return String(d.getUTCFullYear());
      case 'm':
        return two(d.getUTCMonth() + 1);
      case 'd':
        return two(d.getUTCDate());
      case 'T':
        return `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;
      case 'f':
        return String(Math.floor(ns / 1e3) % 1e6).padStart(6, '0');
      default:
        return '%';
    }
  });
}
