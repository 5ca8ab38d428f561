import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IMAGE_DIR, TICK_NS } from '@int3/kernel';
import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import { CliTokens } from '../container/cli-tokens.js';
import { createCliContainer } from '../container/create-cli-container.js';
import { countInterruptions, type HitStep, hitSteps, type MechanismEvent } from '../inspect/hit-steps.js';
import { type Interrupt, interruptedBy, yieldForSignal } from '../runtime/interrupt.js';
import { Style, type Terminal } from '../runtime/terminal.js';
import { checkOutcome, defineEvents, KPROBES_OPTIMIZATION } from '../tracing/run-trace.js';
import { runWorkloadsSliced } from '../tracing/run-workloads-sliced.js';
import {
  applyKretprobeBooster,
  applyTracefsWrite,
  createTracedSession,
  readKernelImage,
  type TracedSession,
} from '../tracing/traced-session.js';
import { writeOut } from '../write-out.js';
import { CommonOptions } from './common-options.js';

/** The seed modules: a kprobe on `__blockdev_direct_IO`, a jprobe on `ip_queue_xmit`, a kretprobe on `sys_mkdir`. */
const MODULES = ['kprobe_example.ko', 'jprobe_example.ko', 'kretprobe_example.ko'];
const DEFINITIONS = [
  'p:open do_sys_open dfd=%di filename=+0(%si):string',
  'r:mkdir_ret sys_mkdir $retval',
  'p:xmit ip_queue_xmit sk=%di skb=%si',
];
const WORKLOADS = [['dd'], ['net'], ['mkdir', '/tmp/demo']];
/** Printk lines of the modules shown (the rest are counted). */
const PRINTK_SHOWN = 6;

/**
 * Registers `int3 demo`: boots the sample kernel on 2 CPUs, loads the three seed modules, defines kprobe
 * events with arguments, runs `dd`, `net` and `mkdir`, and prints the trace, `kprobes/list`,
 * `kprobe_profile`, the modules' printk lines and the interruptions of one kretprobe hit.
 *
 * @see samples/kprobes/{kprobe,jprobe,kretprobe}_example.c, Documentation/kprobes.txt
 */
export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description('kprobes in one screen: seed modules, kprobe events, workloads, the mechanism of a hit')
    .addOption(CommonOptions.image())
    .addHelpText('after', '\nExample:\n  $ int3 demo | less')
    .action(async (options: { image?: string }, command: Command) => {
      const image = readKernelImage(options.image, 'demo');
      const c = createCliContainer(command, () => createTracedSession(image, 2));
      const terminal = c.get<Terminal>(CliTokens.Terminal);
      const t = c.get<TracedSession>(CliTokens.TracedSession);
      let out: string;
      try {
        out = await runDemo(t, c.get<Interrupt>(CliTokens.Interrupt));
      } catch (error) {
        // A stop signal between the workloads' slices: what was traced until then, then the note.
        if (error instanceof CliError && error.kind === 'interrupted') {
          writeOut(
            command,
            paintHeadings(`# cat trace_pipe   (the demo was interrupted)\n${t.fs.read('trace_pipe')}`, terminal),
          );
        }
        throw error;
      }
      writeOut(command, paintHeadings(out, terminal));
    });
}

async function runDemo(t: TracedSession, interrupt: Interrupt): Promise<string> {
  // The workloads run in slices of virtual time (a stop signal ends them there), as trace runs them.
  const runWorkloads = async (workloads: readonly (readonly string[])[]) => {
    const signal = await yieldForSignal(interrupt);
    if (signal) throw interruptedBy(signal, 'during the demo; printed the trace until then');
    checkOutcome(await runWorkloadsSliced(t, workloads, { interrupt }));
  };
  const m = t.session.machine;
  const sym = m.kallsyms.format.bind(m.kallsyms);
  // Step 1: watch the mechanism (coarse events only: traps and kprobes steps).
  const timeline: MechanismEvent[] = [];
  const subs = [
    t.kprobes.events$.subscribe((e) => timeline.push(e)),
    m.streams.traps$.subscribe((e) => timeline.push(e)),
  ];
  // Step 2: the seed modules register their probes from init_module; kprobe events through tracefs.
  // Jump optimization and the kretprobe booster start off, so the first sys_mkdir hit takes the 2.6.12
  // path.
  applyTracefsWrite(t, KPROBES_OPTIMIZATION, '0\n', false);
  applyKretprobeBooster(t, false);
  const printkStart = m.printk.dmesg().split('\n').length - 1;
  for (const name of MODULES) {
    const data = readFileSync(join(IMAGE_DIR, 'modules', 'kprobes', name)).toString('base64');
    t.session.apply({ type: 'input:insmod', name, data });
  }
  defineEvents(t, { definitions: DEFINITIONS, filters: [] }, 'demo');
  // Step 3: one mkdir alone (its hit, classic), then optimization on and the workloads together.
  await runWorkloads([['mkdir', '/tmp/first']]);
  const classic = kretprobeHit(timeline, 0, sym);
  applyTracefsWrite(t, KPROBES_OPTIMIZATION, '1\n', false);
  applyKretprobeBooster(t, true);
  await runWorkloads(WORKLOADS);
  // Step 4: sleep past the optimizer's delay (5 jiffies) and its patching rounds; one more mkdir
  // shows today's path.
  t.session.apply({ type: 'input:run', deadlineNs: m.clock(0) + 2 * t.kprobes.optimization.delay * TICK_NS });
  const modernFrom = timeline.length;
  await runWorkloads([['mkdir', '/tmp/again']]);
  const modern = kretprobeHit(timeline, modernFrom, sym);
  for (const s of subs) s.unsubscribe();
  const printk = m.printk
    .dmesg()
    .split('\n')
    .slice(printkStart)
    .filter((l) => l !== '' && !l.includes('Kprobes globally'));
  const shown = printk.slice(0, PRINTK_SHOWN);
  const sections = [
    `int3 demo: the sample kernel on ${m.cpus.length} CPUs; insmod ${MODULES.join(' ')}`,
    `kprobe_events:\n${indent(t.fs.read('kprobe_events'))}`,
    `# workloads: mkdir /tmp/first, then ${WORKLOADS.map((w) => w.join(' ')).join(', ')}, sleep, mkdir /tmp/again\n# cat trace_pipe\n${t.fs.read('trace_pipe')}`,
    `# cat /sys/kernel/debug/kprobes/list   (k kprobe, r kretprobe, j jprobe)\n${t.fs.read('/sys/kernel/debug/kprobes/list')}`,
    `# cat kprobe_profile   (event, hits, misses)\n${t.fs.read('kprobe_profile')}`,
    `# dmesg: the modules' handlers (printk)\n${shown.join('\n')}\n${printk.length > shown.length ? `  ... ${printk.length - shown.length} more lines\n` : ''}`,
    `# one kretprobe hit on sys_mkdir, the 2.6.12 way (first hit, kprobes-optimization=0, no kretprobe booster): ${told(classic)}`,
    `# a later hit, as x86 does it today (entry jump-optimized, the kretprobe booster's trampoline): ${told(modern)}`,
  ];
  return sections.map((s) => s.replace(/\n*$/, '\n')).join('\n');
}

/**
 * The steps of the first kretprobe hit on `sys_mkdir` at or after `from`: from its entry (the #BP, or
 * the optimized jump's hit) to the return through the trampoline, traps numbered.
 */
function kretprobeHit(timeline: readonly MechanismEvent[], from: number, sym: (a: bigint) => string): HitStep[] {
  return hitSteps(timeline, from, sym, (e) => e.type === 'kretprobe:return-address-swapped') ?? [];
}

/** A hit's heading count and its lines. */
function told(steps: readonly HitStep[]): string {
  const lines = steps.length === 0 ? ['  (no kretprobe hit was seen)'] : steps.map((s) => s.line);
  return `${countInterruptions(steps)}\n${lines.join('\n')}`;
}

/** The demo's section headings (`# …` lines and the title) in bold on a terminal. */
function paintHeadings(text: string, terminal: Terminal): string {
  if (!terminal.colorOut) return text;
  return text.replace(/^(int3 demo:.*|kprobe_events:|# .*)$/gm, (line) => terminal.paintOut(Style.bold, line));
}

function indent(text: string): string {
  return text.replace(/^(?=.)/gm, '  ');
}
