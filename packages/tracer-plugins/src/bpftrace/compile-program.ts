import type { AttachPoint, Expr, Probe, ProbeProvider, Program } from './ast.js';
import { BpfMap, type MapInfo } from './bpf-map.js';
import { BpftraceError } from './bpftrace-error.js';
import type { BpftraceOutput } from './bpftrace-output.js';
import type { BpftraceRuntime } from './bpftrace-runtime.js';
import type { CompileContext, Compiled, Frame, ProgramState, ScratchVar } from './compile-context.js';
import { compileExpr, truth } from './compile-expr.js';
import { compileBlock, orNoted } from './compile-stmt.js';

/** One probe, compiled: its attach points and the closure a hit runs. */
export interface CompiledProbe {
  readonly attachPoints: readonly AttachPoint[];
  /** Runs the probe on a hit: nothing once the program exited, else the predicate, then the block. */
  readonly run: (fr: Frame) => void;
  /** Runs it even after `exit()` (the `end` probes). */
  readonly runAlways: (fr: Frame) => void;
}

/** A whole program, compiled once: its probes, its maps by name, its shared state. */
export interface CompiledProgram {
  readonly probes: readonly CompiledProbe[];
  readonly maps: ReadonlyMap<string, BpfMap>;
  readonly state: ProgramState;
}

/**
 * Compiles a parsed program to closures, once: a first pass gathers every map's key and value types
 * (a map may be read in a probe before the one that assigns it), the second checks everything and
 * builds the closures. Mistakes are a BpftraceError located in the source, the first one's, with the
 * others in source order as its `also`.
 *
 * @see bpftrace src/ast/passes/types/type_resolver.cpp (types gathered from the whole program)
 * @example
 * const p = compileProgram(parseProgram('begin { @x = 1 + 2; }'), rt, output);
 * p.probes[0].run({ cpu: 0, vars: [], probe: 'begin', func: '' });
 */
export function compileProgram(program: Program, rt: BpftraceRuntime, out: BpftraceOutput): CompiledProgram {
  const maps = new Map<string, MapInfo>();
  try {
    compilePass(program, rt, out, maps, false);
  } catch {
    // The first pass only gathers map types; the second reports the mistake at its place.
  }
  return compilePass(program, rt, out, maps, true);
}

function compilePass(
  program: Program,
  rt: BpftraceRuntime,
  out: BpftraceOutput,
  maps: Map<string, MapInfo>,
  strict: boolean,
): CompiledProgram {
  const runtimeMaps = new Map<string, BpfMap>();
  const state: ProgramState = { maps: runtimeMaps, out, exited: false, exitCode: 0, startNs: 0 };
  const mapOf = (name: string) => {
    let m = runtimeMaps.get(name);
    if (m === undefined) {
      let info = maps.get(name);
      if (info === undefined) {
        info = { name, keys: undefined, value: undefined };
        maps.set(name, info);
      }
      m = new BpfMap(info);
      runtimeMaps.set(name, m);
    }
    return m;
  };
  const errors: BpftraceError[] = [];
  const probes = program.probes.map((p) => compileProbe(p, { rt, state, maps, strict, mapOf, errors }));
  const [first, ...rest] = errors;
  if (first !== undefined) throw new BpftraceError(first.message, first.location, rest);
  // Maps only ever read or cleared hold nothing worth printing, as bpftrace drops unassigned maps.
  for (const [name, m] of runtimeMaps) if (m.info.value === undefined) runtimeMaps.delete(name);
  return { probes, maps: runtimeMaps, state };
}

function compileProbe(
  p: Probe,
  shared: Pick<CompileContext, 'rt' | 'state' | 'maps' | 'strict' | 'mapOf' | 'errors'>,
): CompiledProbe {
  const providers = new Set<ProbeProvider>(p.attachPoints.map((a) => a.provider));
  const vars = new Map<string, ScratchVar>();
  const ctx: CompileContext = {
    ...shared,
    providers,
    vars,
    expr: (e: Expr): Compiled => compileExpr(ctx, e),
  };
  const predicate = p.predicate;
  const pred = predicate
    ? orNoted(
        ctx,
        () => truth(ctx.expr(predicate), predicate.loc),
        () => false,
      )
    : undefined;
  const body = compileBlock(ctx, p.body, false);
  const state = shared.state;
  const run = pred
    ? (fr: Frame) => {
        if (!state.exited && pred(fr)) body(fr);
      }
    : (fr: Frame) => {
        if (!state.exited) body(fr);
      };
  const runAlways = (fr: Frame) => {
    if (!pred || pred(fr)) body(fr);
  };
  return { attachPoints: p.attachPoints, run, runAlways };
}
