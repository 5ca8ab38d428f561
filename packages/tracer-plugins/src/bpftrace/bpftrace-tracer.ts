import type { PtRegs } from '@int3/kernel';
import { type Kprobe, KprobeError, type Kretprobe } from '@int3/kprobes';
import { injectable } from 'inversify';
import type { Tracer, TracerOutput, TracerReport } from '../plugins/tracer.js';
import type { TracerContext } from '../plugins/tracer-context.js';
import type { TracerKprobes } from '../view/tracer-kprobes.js';
import type { AttachPoint } from './ast.js';
import { parseBpftraceArgs } from './bpftrace-args.js';
import { BpftraceError } from './bpftrace-error.js';
import { BpftraceProgram } from './bpftrace-program.js';
import type { BpftraceAttachHost } from './bpftrace-runtime.js';
import type { Frame } from './compile-context.js';
import type { CompiledProbe } from './compile-program.js';
import { MachineBpftraceRuntime } from './machine-bpftrace-runtime.js';

/** A periodic probe on virtual time: `interval` on CPU 0, `profile` on each CPU. */
interface Periodic {
  readonly probe: CompiledProbe;
  readonly periodNs: number;
  readonly frame: Frame;
  readonly cpu: number;
  next: number;
}

/**
 * bpftrace as a tracer: compiles the program once, attaches its kprobes and kretprobes (a wildcard
 * to every function it matches) through the public kprobes API, runs `interval`/`profile` probes on
 * virtual time at round boundaries, runs `begin` at start and, at stop, `end` and the map printout.
 * A program mistake, or an attach point that matches nothing, throws a BpftraceError and attaches
 * nothing.
 *
 * @see bpftrace src/bpftrace.cpp BPFtrace::run(), src/attached_probe.cpp
 * @example
 * host.start('bpftrace', ['kprobe:vfs_read { @[comm] = count(); }']);
 */
@injectable()
export class BpftraceTracer implements Tracer {
  readonly name = 'bpftrace';
  readonly description =
    "bpftrace's language on kprobes: [-f text|json] 'PROGRAM' (e.g. 'kprobe:vfs_read { @[comm] = count(); }')";
  #kprobes: TracerKprobes | undefined;
  #kps: Kprobe[] = [];
  #rps: Kretprobe[] = [];
  #periodic: Periodic[] = [];
  #untick: (() => void) | undefined;
  #program: BpftraceProgram | undefined;
  #stdout = '';
  #stderr = '';

  start(ctx: TracerContext): void {
    const args = parseBpftraceArgs(ctx.args);
    this.#stdout = '';
    this.#stderr = '';
    const rt = new MachineBpftraceRuntime(ctx);
    const sink = { stdout: (s: string) => (this.#stdout += s), stderr: (s: string) => (this.#stderr += s) };
    const program = new BpftraceProgram(args.source, rt, args.format, sink);
    // Step 1: resolve every attach point before attaching any, so a miss attaches nothing.
    const plan: { probe: CompiledProbe; ap: AttachPoint; funcs: string[] }[] = [];
    for (const probe of program.compiled.probes) {
      for (const ap of probe.attachPoints) {
        if (ap.provider !== 'kprobe' && ap.provider !== 'kretprobe') {
          plan.push({ probe, ap, funcs: [] });
          continue;
        }
        const funcs = rt.matchFunctions(ap.func as string, ap.module);
        if (funcs.length === 0) {
          throw new BpftraceError(
            `No matches for ${ap.provider} ${ap.module ? `${ap.module}:` : ''}${ap.func}.`,
            ap.loc,
          );
        }
        plan.push({ probe, ap, funcs });
      }
    }
    // Step 2: attach; a function a wildcard matched that kprobes refuses (blacklisted) is skipped.
    this.#kprobes = rt.kprobes;
    let attached = 0;
    for (const { probe, ap, funcs } of plan) {
      if (ap.provider === 'begin' || ap.provider === 'end') {
        attached++;
        continue;
      }
      if (ap.provider === 'interval' || ap.provider === 'profile') {
        const cpus = ap.provider === 'interval' ? [0] : Array.from({ length: rt.ncpus }, (_c, i) => i);
        for (const cpu of cpus) {
          const frame = program.frame(ap.canonical, '');
          frame.cpu = cpu;
          this.#periodic.push({
            probe,
            periodNs: ap.periodNs as number,
            frame,
            cpu,
            next: rt.now(cpu) + (ap.periodNs as number),
          });
        }
        attached++;
        continue;
      }
      const wild = funcs.length > 1 || /[*?[]/.test(ap.func as string);
      for (const func of funcs) {
        try {
          this.#attach(rt, program, probe, ap, func);
          attached++;
        } catch (error) {
          if (!(error instanceof KprobeError)) throw error;
          if (wild) continue;
          this.stop();
          throw new BpftraceError(`Unable to attach probe: ${ap.canonical}: ${error.message}`, ap.loc);
        }
      }
    }
    this.#program = program;
    program.output.attachedProbes(attached);
    program.begin();
    if (this.#periodic.length > 0) this.#untick = rt.onRoundBoundary(() => this.#tick(rt));
  }

  #attach(rt: BpftraceAttachHost, program: BpftraceProgram, probe: CompiledProbe, ap: AttachPoint, func: string): void {
    const kprobes = rt.kprobes;
    const name = `${ap.provider}:${ap.module ? `${ap.module}:` : ''}${func}${ap.offset ? `+${ap.offset}` : ''}`;
    const frame = program.frame(name, func);
    const run = probe.run;
    const hit = (regs: PtRegs) => {
      frame.cpu = rt.enter(regs);
      run(frame);
    };
    if (ap.provider === 'kprobe') {
      const kp: Kprobe = {
        symbolName: func,
        offset: ap.offset ?? 0,
        preHandler: (_p, regs) => {
          hit(regs);
          return 0;
        },
      };
      kprobes.registerKprobe(kp);
      this.#kps.push(kp);
      return;
    }
    const rp: Kretprobe = { kp: { symbolName: func }, handler: (_ri, regs) => hit(regs) };
    kprobes.registerKretprobe(rp);
    this.#rps.push(rp);
  }

  #tick(rt: BpftraceAttachHost): void {
    for (const p of this.#periodic) {
      const now = rt.now(p.cpu);
      while (now >= p.next) {
        p.next += p.periodNs;
        rt.enterIrq(p.cpu);
        p.probe.run(p.frame);
      }
    }
  }

  /** Whether the program called `exit()`: the run may stop (later hits are ignored anyway). */
  get exited(): boolean {
    return this.#program?.exited ?? false;
  }

  stop(): void {
    const k = this.#kprobes;
    if (k) {
      for (const kp of this.#kps) k.unregisterKprobe(kp);
      for (const rp of this.#rps) k.unregisterKretprobe(rp);
    }
    this.#kps = [];
    this.#rps = [];
    this.#untick?.();
    this.#untick = undefined;
    this.#periodic = [];
    this.#kprobes = undefined;
    this.#program?.finish();
  }

  /** What the program printed and has not yet been drained (all of it, when nobody drains). */
  report(): TracerReport {
    return { format: 'text', text: this.#stdout };
  }

  /**
   * What the program printed since the last drain — `printf` lines as they came, the `Attached` line
   * on stderr, and after stop the `end` probes' output and the maps — and, once it called `exit()`,
   * the exit status it asked for.
   */
  drain(): TracerOutput {
    const out: TracerOutput = this.exited
      ? { stdout: this.#stdout, stderr: this.#stderr, exit: this.#program?.exitCode ?? 0 }
      : { stdout: this.#stdout, stderr: this.#stderr };
    this.#stdout = '';
    this.#stderr = '';
    return out;
  }
}
