import type { Expr, ProbeProvider } from './ast.js';
import type { BpfMap, MapInfo, Value } from './bpf-map.js';
import type { BpftraceError } from './bpftrace-error.js';
import type { BpftraceOutput } from './bpftrace-output.js';
import type { BpftraceRuntime } from './bpftrace-runtime.js';
import type { BpfType } from './bpftrace-type.js';

/** One probe hit, reused for every hit of its attach point: the CPU, the scratch variables, the probe. */
export interface Frame {
  cpu: number;
  readonly vars: unknown[];
  /** The attach point as `probe` prints it (`kprobe:vfs_read`). */
  readonly probe: string;
  /** The probed function (`func`). */
  readonly func: string;
}

/** What a running program shares between its probes: its maps, its output, whether it exited. */
export interface ProgramState {
  readonly maps: ReadonlyMap<string, BpfMap>;
  out: BpftraceOutput;
  /** Set by `exit()`: later hits are ignored, `end` probes run when the tracer stops. */
  exited: boolean;
  /** The exit status `exit(code)` asked for (its low 8 bits, as a process exit status), 0 by default. */
  exitCode: number;
  /** `nsecs` when `begin` ran (`elapsed` counts from there). */
  startNs: number;
}

/** A compiled expression: its type, and the closure that computes it on a hit. */
export interface Compiled<T = Value> {
  readonly t: BpfType;
  readonly f: (fr: Frame) => T;
}

/** A scratch variable of the probe being compiled: its slot in {@link Frame.vars} and its type. */
export interface ScratchVar {
  readonly slot: number;
  type: BpfType;
}

/**
 * What expression, call and statement compilers share while compiling one probe: the runtime, the
 * program's maps (their types gathered by a first pass), the probe's providers (which builtins are
 * valid) and its scratch variables.
 */
export interface CompileContext {
  readonly rt: BpftraceRuntime;
  readonly state: ProgramState;
  readonly maps: Map<string, MapInfo>;
  /** False on the first pass, which only gathers map types: unknown maps are not yet errors. */
  readonly strict: boolean;
  readonly providers: ReadonlySet<ProbeProvider>;
  readonly vars: Map<string, ScratchVar>;
  /** Compiles a sub-expression (the expression compiler's entry). */
  expr(e: Expr): Compiled;
  /** The runtime map of a name (created when first compiled). */
  mapOf(name: string): BpfMap;
  /**
   * The mistakes found so far: a statement (or predicate) that fails to compile is noted here and
   * compiling goes on with the next, so that every mistake is reported, as bpftrace's semantic pass
   * reports them all.
   */
  readonly errors: BpftraceError[];
}
