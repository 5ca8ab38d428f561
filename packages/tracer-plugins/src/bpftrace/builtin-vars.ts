import type { PtRegName } from '@int3/kernel';
import type { ProbeProvider } from './ast.js';
import { BpftraceError } from './bpftrace-error.js';
import { type BpfType, UINT32, UINT64 } from './bpftrace-type.js';
import type { CompileContext, Compiled, Frame } from './compile-context.js';
import { kstackOf } from './kstack.js';
import type { SourceLocation } from './source-location.js';

const ARG_REGS: readonly PtRegName[] = ['di', 'si', 'dx', 'cx', 'r8', 'r9'];
const COMM: BpfType = Object.freeze({ k: 'string', size: 16 });
const PROBE: BpfType = Object.freeze({ k: 'string', size: 64 });
const KSYM: BpfType = Object.freeze({ k: 'ksym' });
const KSTACK: BpfType = Object.freeze({ k: 'kstack' });

/**
 * A builtin variable (`pid`, `comm`, `arg0`, `retval`, `kstack`, …) compiled for the probe at hand;
 * one only some probe types have (`retval` on a kprobe) or one bpftrace does not know is an error.
 *
 * @see bpftrace docs/language.md "Builtins"
 */
export function compileBuiltin(ctx: CompileContext, name: string, loc: SourceLocation): Compiled {
  const rt = ctx.rt;
  const arg = /^arg([0-5])$/.exec(name);
  if (arg) {
    needs(ctx, ['kprobe'], name, loc, "'kprobes'");
    const reg = ARG_REGS[Number(arg[1])];
    return { t: UINT64, f: (fr) => rt.reg(fr.cpu, reg) };
  }
  switch (name) {
    case 'pid':
      return { t: UINT32, f: (fr) => BigInt(rt.currentTask(fr.cpu).pid) };
    case 'tid':
      return { t: UINT32, f: (fr) => BigInt(rt.currentTask(fr.cpu).tid) };
    case 'comm':
      return { t: COMM, f: (fr) => rt.currentTask(fr.cpu).comm };
    case 'cpu':
      return { t: UINT32, f: (fr) => BigInt(fr.cpu) };
    case 'ncpus': {
      const n = BigInt(rt.ncpus);
      return { t: UINT32, f: () => n };
    }
    case 'nsecs':
      return { t: UINT64, f: (fr) => BigInt(Math.trunc(rt.now(fr.cpu))) };
    case 'elapsed': {
      const state = ctx.state;
      return { t: UINT64, f: (fr) => BigInt(Math.trunc(rt.now(fr.cpu) - state.startNs)) };
    }
    case 'retval':
      needs(ctx, ['kretprobe'], name, loc, "'kretprobe'");
      return { t: UINT64, f: (fr) => rt.reg(fr.cpu, 'ax') };
    case 'func':
      needs(ctx, ['kprobe', 'kretprobe'], name, loc, "'kprobe' and 'kretprobe'");
      return { t: KSYM, f: (fr: Frame) => fr.func };
    case 'probe':
      return { t: PROBE, f: (fr) => fr.probe };
    case 'kstack':
      return { t: KSTACK, f: (fr) => kstackOf(rt, fr.cpu) };
    case 'curtask':
      return { t: UINT64, f: (fr) => rt.currentTask(fr.cpu).task };
  }
  throw new BpftraceError(`Unknown identifier: '${name}'`, loc);
}

function needs(
  ctx: CompileContext,
  ok: readonly ProbeProvider[],
  name: string,
  loc: SourceLocation,
  which: string,
): void {
  for (const p of ctx.providers) {
    if (!ok.includes(p)) throw new BpftraceError(`The ${name} builtin can only be used with ${which} probes`, loc);
  }
}
