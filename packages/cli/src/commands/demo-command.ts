import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TrapEvent } from '@int3/cpu';
import { IMAGE_DIR, TICK_NS } from '@int3/kernel';
import type { KprobeEvent } from '@int3/kprobes';
import type { Command } from 'commander';
import { CliTokens } from '../container/cli-tokens.js';
import { createCliContainer } from '../container/create-cli-container.js';
import { Style, type Terminal } from '../runtime/terminal.js';
import { checkOutcome, defineEvents, KPROBES_OPTIMIZATION, runWorkloads } from '../tracing/run-trace.js';
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
    .action((options: { image?: string }, command: Command) => {
      const image = readKernelImage(options.image, 'demo');
      const c = createCliContainer(command, () => createTracedSession(image, 2));
      const terminal = c.get<Terminal>(CliTokens.Terminal);
      const out = runDemo(c.get<TracedSession>(CliTokens.TracedSession));
      writeOut(command, paintHeadings(out, terminal));
    });
}

const HIT_PATH: Record<Extract<KprobeEvent, { type: 'kprobe:hit' }>['path'], string> = {
  int3: 'int3, the copy single-stepped',
  boosted: 'int3, the boosted copy runs without #DB',
  optimized: 'its jmp to the optimized callback, no trap',
  detour: 'int3 of a probe being optimized, sent to the detour',
};

function runDemo(t: TracedSession): string {
  const m = t.session.machine;
  const sym = m.kallsyms.format.bind(m.kallsyms);
  // Step 1: watch the mechanism (coarse events only: traps and kprobes steps).
  const timeline: (KprobeEvent | TrapEvent)[] = [];
  const subs = [t.kprobes.events$.subscribe((e) => timeline.push(e)), m.traps$.subscribe((e) => timeline.push(e))];
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
  checkOutcome(runWorkloads(t, [['mkdir', '/tmp/first']]));
  const classic = kretprobeHit(timeline, 0, sym);
  applyTracefsWrite(t, KPROBES_OPTIMIZATION, '1\n', false);
  applyKretprobeBooster(t, true);
  checkOutcome(runWorkloads(t, WORKLOADS));
  // Step 4: sleep past the optimizer's delay (5 jiffies) and its patching rounds; one more mkdir
  // shows today's path.
  t.session.apply({ type: 'input:run', deadlineNs: m.clock(0) + 2 * t.kprobes.optimization.delay * TICK_NS });
  const modernFrom = timeline.length;
  checkOutcome(runWorkloads(t, [['mkdir', '/tmp/again']]));
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
    `# one kretprobe hit on sys_mkdir, the 2.6.12 way (first hit, kprobes-optimization=0, no kretprobe booster): ${count(classic)}\n${classic.join('\n')}`,
    `# a later hit, as x86 does it today (entry jump-optimized, the kretprobe booster's trampoline): ${count(modern)}\n${modern.join('\n')}`,
  ];
  return sections.map((s) => s.replace(/\n*$/, '\n')).join('\n');
}

function count(steps: readonly string[]): string {
  const n = steps.filter((l) => l.startsWith('  interruption ')).length;
  return `${n} interruption${n === 1 ? '' : 's'}`;
}

/**
 * The traps and kprobes steps of the first kretprobe hit on `sys_mkdir` at or after `from`: from its
 * entry (the #BP, or the optimized jump's hit) to the return through the trampoline, traps numbered.
 */
function kretprobeHit(
  timeline: readonly (KprobeEvent | TrapEvent)[],
  from: number,
  sym: (a: bigint) => string,
): string[] {
  const swap = timeline.findIndex((e, i) => i >= from && e.type === 'kretprobe:return-address-swapped');
  if (swap < 0) return ['  (no kretprobe hit was seen)'];
  const cpu = timeline[swap].cpu;
  let first = swap;
  while (first > from && !(timeline[first].type === 'kprobe:hit' && timeline[first].cpu === cpu)) first--;
  if (first > from && isTrap(timeline[first - 1]) && timeline[first - 1].cpu === cpu) first--;
  const lines: string[] = [];
  let n = 0;
  let returned = false;
  for (let i = first; i < timeline.length; i++) {
    const e = timeline[i];
    if (e.cpu !== cpu && e.cpu !== -1) continue;
    if (returned && e.type !== 'kretprobe:trampoline-hit') {
      // After the return: only the 2.6.12 trampoline's own single-step, if it is not boosted.
      const step = e.type === 'kprobe:pre-handler-ran' || e.type === 'kprobe:single-step-begun';
      if (!step && !(isTrap(e) && e.vector === 1) && e.type !== 'kprobe:resumed') break;
    }
    if (isTrap(e)) lines.push(`  interruption ${++n}: ${e.name} at ${sym(e.rip)}`);
    else if (e.type !== 'kprobe:pre-handler-ran') lines.push(`      ${describeStep(e, sym)}`);
    if (e.type === 'kretprobe:trampoline-hit') returned = true;
    if (returned && e.type === 'kprobe:resumed') break;
  }
  return lines;
}

/** The demo's section headings (`# …` lines and the title) in bold on a terminal. */
function paintHeadings(text: string, terminal: Terminal): string {
  if (!terminal.colorOut) return text;
  return text.replace(/^(int3 demo:.*|kprobe_events:|# .*)$/gm, (line) => terminal.paintOut(Style.bold, line));
}

function isTrap(e: KprobeEvent | TrapEvent): e is TrapEvent {
  return e.type === 'trap:raised';
}

function describeStep(e: KprobeEvent, sym: (a: bigint) => string): string {
  switch (e.type) {
    case 'kretprobe:return-address-swapped':
      return `${e.type}: return address ${sym(e.original)} -> ${sym(e.trampoline)}`;
    case 'kretprobe:trampoline-hit':
      return `${e.type}: ${e.symbol} returned ${e.retval}, back to ${sym(e.returnTo)}`;
    case 'kprobe:single-step-begun':
      return `${e.type}: copy of '${e.insn}' at slot 0x${e.slot.toString(16)}`;
    case 'kprobe:resumed':
      return `${e.type}: ${e.fixup}, ip = ${sym(e.ip)}`;
    case 'kprobe:hit':
      return `${e.type}: ${e.symbol} (${HIT_PATH[e.path]})`;
    default:
      return `${e.type} (${e.symbol})`;
  }
}

function indent(text: string): string {
  return text.replace(/^(?=.)/gm, '  ');
}
