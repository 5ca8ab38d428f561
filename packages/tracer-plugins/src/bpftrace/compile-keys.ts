import type { MapAccess } from './ast.js';
import { BpftraceError } from './bpftrace-error.js';
import { type BpfType, compatible, typeName, widen } from './bpftrace-type.js';
import type { CompileContext, Compiled, Frame } from './compile-context.js';

/** The closure of an integer expression, as bigint (bool as 0/1). */
export function asInt(c: Compiled): (fr: Frame) => bigint {
  const f = c.f;
  if (c.t.k === 'bool') return (fr) => (f(fr) ? 1n : 0n);
  return f as (fr: Frame) => bigint;
}

/** Checks (and on the first pass records) a map access's key types; returns the key closures. */
export function compileKeys(ctx: CompileContext, m: MapAccess): Compiled[] {
  const keys = m.keys.map((k) => ctx.expr(k));
  const types = keys.map((k) => k.t);
  const info = ctx.maps.get(m.name);
  if (info === undefined) {
    ctx.maps.set(m.name, { name: m.name, keys: types, value: undefined });
    return keys;
  }
  if (info.keys === undefined) {
    info.keys = types;
    return keys;
  }
  const same = info.keys.length === types.length && info.keys.every((t, i) => compatible(t, types[i]));
  if (!same) {
    const show = (ts: readonly BpfType[]) => (ts.length === 1 ? typeName(ts[0]) : `(${ts.map(typeName).join(',')})`);
    if (info.keys.length === 0 && types.length > 0) {
      throw new BpftraceError(
        `${m.name} used as a map with an explicit key (non-scalar map), previously used without an explicit key (scalar map)`,
        m.loc,
      );
    }
    if (types.length === 0) {
      throw new BpftraceError(
        `${m.name} used as a map without an explicit key (scalar map), previously used with an explicit key (non-scalar map)`,
        m.loc,
      );
    }
    throw new BpftraceError(
      `Argument mismatch for ${m.name}: trying to access with arguments: '${show(types)}' when map expects arguments: '${show(info.keys)}'`,
      m.loc,
    );
  }
  info.keys = info.keys.map((t, i) => widen(t, types[i]));
  return keys;
}
