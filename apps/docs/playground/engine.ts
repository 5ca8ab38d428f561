import image from 'virtual:int3-image';
import {
  createTracedSession,
  Interrupt,
  type MechanismEvent,
  replayTrace,
  type TracedSession,
  TracefsShell,
} from '@int3/cli';
import { SAMPLE_IMAGE_PATH } from '@int3/kernel';
import { hitView, TIMELINE_CAP } from './hit-view.js';
import type { OutputChunk, PlaygroundReply, PlaygroundRequest } from './protocol.js';
import { addFile } from './shims/vfs.js';

for (const [path, base64] of Object.entries(image)) {
  addFile(
    path,
    Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)),
  );
}

/**
 * Ctrl-C for the playground: a run stops at its next slice once the machine has retired more
 * instructions than the budget, as `int3 tracefs` stops at Ctrl-C (the shell reports where).
 */
class BudgetInterrupt extends Interrupt {
  budget = Number.POSITIVE_INFINITY;
  constructor(private readonly retired: () => number) {
    super();
  }
  override get requested(): boolean {
    return this.signal !== undefined;
  }
  /** Over the budget, the run stops as at Ctrl-C (SIGINT). */
  override get signal(): Interrupt['signal'] {
    return super.signal ?? (this.retired() > this.budget ? 'SIGINT' : undefined);
  }
}

/** Collects the first {@link TIMELINE_CAP} traps and kprobes steps of a machine, in order. */
function watch(t: TracedSession): MechanismEvent[] {
  const timeline: MechanismEvent[] = [];
  const keep = (e: MechanismEvent) => {
    if (timeline.length < TIMELINE_CAP) timeline.push(e);
  };
  t.kprobes.events$.subscribe(keep);
  t.session.machine.streams.traps$.subscribe(keep);
  return timeline;
}

function retired(t: TracedSession): number {
  let n = 0;
  for (const cpu of t.session.machine.cpus) n += cpu.retired;
  return n;
}

/** Instructions the CPUs retired in compiled code (the block compiler runs in the worker as in Node). */
function compiled(t: TracedSession): number {
  let n = 0;
  for (const cpu of t.session.machine.cpus) n += cpu.jit?.stats.retired ?? 0;
  return n;
}

/** One machine and its `int3 tracefs` shell, driven by the page's requests. */
export class PlaygroundEngine {
  private traced: TracedSession | undefined;
  private shell: TracefsShell | undefined;
  private interrupt: BudgetInterrupt | undefined;
  private output: OutputChunk[] = [];
  /** Traps and kprobes steps since boot (the first {@link TIMELINE_CAP}), for the step-by-step view. */
  private timeline: MechanismEvent[] = [];

  async handle(request: PlaygroundRequest): Promise<PlaygroundReply> {
    switch (request.type) {
      case 'boot': {
        const start = performance.now();
        // Caused events are journaled, as `int3 record` journals them, so the downloaded log replays.
        const t = createTracedSession({ bytes: vmlinux(), name: SAMPLE_IMAGE_PATH.split('/').pop()! }, request.cpus, {
          recordEvents: true,
        });
        this.traced = t;
        this.timeline = watch(t);
        this.interrupt = new BudgetInterrupt(() => retired(t));
        this.shell = new TracefsShell(
          t,
          {
            out: (text) => this.output.push({ stream: 'out', text }),
            err: (text) => this.output.push({ stream: 'err', text }),
          },
          this.interrupt,
        );
        const modules = Object.keys(image).filter((p) => p.startsWith('modules/') && p.endsWith('.ko'));
        return { type: 'booted', id: request.id, ms: performance.now() - start, modules: modules.sort() };
      }
      case 'hit':
        if (this.traced === undefined)
          return { type: 'error', id: request.id, message: 'int3: the machine is not booted' };
        {
          const view = hitView(this.traced, this.timeline);
          return view === undefined ? { type: 'hit', id: request.id } : { type: 'hit', id: request.id, view };
        }
      case 'replay':
        return this.replay(request);
      case 'log':
        if (this.traced === undefined)
          return { type: 'error', id: request.id, message: 'int3: the machine is not booted' };
        return { type: 'log', id: request.id, text: this.traced.session.completeText() };
      case 'exec': {
        const { shell, interrupt, traced } = this;
        if (shell === undefined || interrupt === undefined || traced === undefined) {
          return { type: 'error', id: request.id, message: 'int3: the machine is not booted' };
        }
        this.output = [];
        shell.failed = false;
        shell.interrupted = false;
        interrupt.budget = retired(traced) + request.budget;
        await shell.execute(request.line);
        const budgetExceeded = shell.interrupted && retired(traced) > interrupt.budget;
        if (budgetExceeded) this.output.push(budgetMessage(request.budget));
        return {
          type: 'done',
          id: request.id,
          output: this.output,
          failed: shell.failed,
          budgetExceeded,
          instructions: retired(traced),
          compiled: compiled(traced),
        };
      }
    }
  }

  /** `int3 replay` of a log on a machine of its own, stopped by the instruction budget as a run is. */
  private async replay(request: Extract<PlaygroundRequest, { type: 'replay' }>): Promise<PlaygroundReply> {
    const output: OutputChunk[] = [];
    let replayed: TracedSession | undefined;
    const count = () => (replayed === undefined ? 0 : retired(replayed));
    const interrupt = new BudgetInterrupt(count);
    interrupt.budget = request.budget;
    const { status } = await replayTrace(request.log, request.name, {
      event: request.definitions,
      filter: request.filters,
      trigger: request.triggers,
      interrupt,
      out: (text) => output.push({ stream: 'out', text }),
      err: (text) => output.push({ stream: 'err', text }),
      onBooted: (t) => {
        replayed = t;
      },
    });
    const budgetExceeded = count() > request.budget && interrupt.signal !== undefined;
    if (budgetExceeded) output.push(budgetMessage(request.budget));
    return { type: 'replayed', id: request.id, output, status, budgetExceeded, instructions: count() };
  }
}

function budgetMessage(budget: number): OutputChunk {
  return {
    stream: 'err',
    text: `int3: stopped by the instruction budget (${budget.toLocaleString('en-US')} instructions); raise it to run longer\n`,
  };
}

function vmlinux(): Uint8Array {
  const base64 = image.vmlinux;
  if (base64 === undefined) throw new Error('the kernel image is missing from the bundle');
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}
