import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TrapEvent } from '@int3/cpu';
import { IMAGE_DIR } from '@int3/kernel';
import type { KprobeEvent } from '@int3/kprobes';
import type { Command } from 'commander';
import { CliTokens } from '../container/cli-tokens.js';
import { createCliContainer } from '../container/create-cli-container.js';
import { Style, type Terminal } from '../runtime/terminal.js';
import { checkOutcome, defineEvents, runWorkloads } from '../tracing/run-trace.js';
import { createTracedSession, readKernelImage, type TracedSession } from '../tracing/traced-session.js';
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

function runDemo(t: TracedSession): string {
  const m = t.session.machine;
  // Step 1: watch the mechanism (coarse events only: traps and kprobes steps).
  const timeline: (KprobeEvent | TrapEvent)[] = [];
  const subs = [t.kprobes.events$.subscribe((e) => timeline.push(e)), m.traps$.subscribe((e) => timeline.push(e))];
  // Step 2: the seed modules register their probes from init_module.
  const printkStart = m.printk.dmesg().split('\n').length - 1;
  for (const name of MODULES) {
    const data = readFileSync(join(IMAGE_DIR, 'modules', 'kprobes', name)).toString('base64');
    t.session.apply({ type: 'input:insmod', name, data });
  }
  // Step 3: kprobe events through tracefs, then the workloads.
  defineEvents(t, { definitions: DEFINITIONS, filters: [] }, 'demo');
  checkOutcome(runWorkloads(t, WORKLOADS));
  for (const s of subs) s.unsubscribe();
  const printk = m.printk
    .dmesg()
    .split('\n')
    .slice(printkStart)
    .filter((l) => l !== '');
  const shown = printk.slice(0, PRINTK_SHOWN);
  const sections = [
    `int3 demo: the sample kernel on ${m.cpus.length} CPUs; insmod ${MODULES.join(' ')}`,
    `kprobe_events:\n${indent(t.fs.read('kprobe_events'))}`,
    `# workloads: ${WORKLOADS.map((w) => w.join(' ')).join(', ')}\n# cat trace_pipe\n${t.fs.read('trace_pipe')}`,
    `# cat /sys/kernel/debug/kprobes/list   (k kprobe, r kretprobe, j jprobe)\n${t.fs.read('/sys/kernel/debug/kprobes/list')}`,
    `# cat kprobe_profile   (event, hits, misses)\n${t.fs.read('kprobe_profile')}`,
    `# dmesg: the modules' handlers (printk)\n${shown.join('\n')}\n${printk.length > shown.length ? `  ... ${printk.length - shown.length} more lines\n` : ''}`,
    `${kretprobeHit(timeline, m.kallsyms.format.bind(m.kallsyms))}`,
  ];
  return sections.map((s) => s.replace(/\n*$/, '\n')).join('\n');
}

/** The traps and kprobes steps of the first kretprobe hit on `sys_mkdir`, numbered interruptions. */
function kretprobeHit(timeline: readonly (KprobeEvent | TrapEvent)[], sym: (a: bigint) => string): string {
  const start = timeline.findIndex((e) => e.type === 'kretprobe:return-address-swapped');
  if (start < 0) return '# no kretprobe hit was seen\n';
  const cpu = timeline[start].cpu;
  // The hit begins with the #BP just before the swap, and ends when the trampoline's work resumed.
  let first = start;
  while (first > 0 && !(isTrap(timeline[first]) && timeline[first].cpu === cpu)) first--;
  const lines = ['# one kretprobe hit on sys_mkdir, step by step (the interruptions are the traps)'];
  let n = 0;
  let sawTrampoline = false;
  for (let i = first; i < timeline.length && lines.length < 24; i++) {
    const e = timeline[i];
    if (e.cpu !== cpu && e.cpu !== -1) continue;
    if (isTrap(e)) {
      if (sawTrampoline && n >= 4) break;
      lines.push(`  interruption ${++n}: ${e.name} at ${sym(e.rip)}`);
    } else {
      lines.push(`      ${describeStep(e, sym)}`);
      if (e.type === 'kretprobe:trampoline-hit') sawTrampoline = true;
    }
  }
  return `${lines.join('\n')}\n`;
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
    default:
      return `${e.type} (${e.symbol})`;
  }
}

function indent(text: string): string {
  return text.replace(/^(?=.)/gm, '  ');
}
