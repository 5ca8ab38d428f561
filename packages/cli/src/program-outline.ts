import { Command, Help } from 'commander';
import { describeProgram } from './describe-program.js';

/** One command as the top-level help lists it: its usage term and one-line description. */
export interface CommandOutline {
  readonly name: string;
  /** What the help's Commands column shows, e.g. `call [options] <symbol> [args...]`. */
  readonly term: string;
  readonly description: string;
}

/**
 * Every command of `createProgram()`, in its order, as `int3 --help` lists them. A test checks this
 * table against the commands' own definitions (same terms, descriptions and help text), so it
 * cannot drift; it exists so that `int3 --help` and `int3 --version` need not load the emulator.
 */
export const COMMAND_OUTLINE: readonly CommandOutline[] = [
  {
    name: 'trace',
    term: 'trace [options] [workload...]',
    description: 'define kprobe events, run workloads, print the trace (as cat trace_pipe)',
  },
  {
    name: 'record',
    term: 'record [options] [workload...]',
    description: 'run as int3 trace does, and write the run as a replayable event log',
  },
  {
    name: 'replay',
    term: 'replay [options] <log>',
    description: 'replay a recorded run, optionally with probes added after the fact, or stop at an event',
  },
  {
    name: 'tracefs',
    term: 'tracefs [options]',
    description: 'a line shell over the virtual tracefs: echo > kprobe_events, cat trace, as in the kernel docs',
  },
  {
    name: 'tracers',
    term: 'tracers',
    description: 'list the tracers --tracer can start: the built-in ones and those of each --plugin',
  },
  {
    name: 'bpftrace',
    term: 'bpftrace [options] [args...]',
    description: "run a bpftrace program (bpftrace's language and output) on kprobes while workloads run",
  },
  {
    name: 'probes',
    term: 'probes [options] <what>',
    description: 'print the kprobes debugfs list (registered probes) or blacklist',
  },
  {
    name: 'syms',
    term: 'syms [options] [glob]',
    description: 'list the kernel functions one can probe (like available_filter_functions)',
  },
  {
    name: 'disasm',
    term: 'disasm [options] <symbol>',
    description: 'disassemble a kernel function, marking probe points',
  },
  {
    name: 'dmesg',
    term: 'dmesg [options]',
    description: 'print the kernel log (printk) after boot and any --run workloads',
  },
  {
    name: 'call',
    term: 'call [options] <symbol> [args...]',
    description: 'run one function of a freestanding x86-64 ELF in ring 0 and print what it returns',
  },
  {
    name: 'module',
    term: 'module',
    description: 'build kernel modules for insmod/--insmod',
  },
  {
    name: 'demo',
    term: 'demo [options]',
    description: 'kprobes in one screen: seed modules, kprobe events, workloads, the mechanism of a hit',
  },
  {
    name: 'completion',
    term: 'completion <shell>',
    description: 'print a shell completion script for bash, zsh or fish',
  },
];

/** The words an argv may hold and still need nothing but the outline (help, version, global flags). */
const OUTLINE_WORDS: ReadonlySet<string> = new Set(['-V', '--version', '-h', '--help', '--no-color', '-q', '--quiet']);

/**
 * True when `argv` (without node and the script) asks only for the top-level help or the version,
 * which {@link createOutlineProgram} answers without loading a command (nor the emulator).
 */
export function outlineSuffices(argv: readonly string[]): boolean {
  return argv.every((word) => OUTLINE_WORDS.has(word) || /^--color=(auto|always|never)$/.test(word));
}

/**
 * The `int3` program with its commands as outlines only: it prints the same `--help`, `--version`
 * and usage errors as `createProgram()` and loads none of the emulator.
 */
export function createOutlineProgram(): Command {
  const program = describeProgram(new Command('int3'));
  const terms = new Map(COMMAND_OUTLINE.map((c) => [c.name, c.term]));
  const help = new Help();
  program.configureHelp({ subcommandTerm: (c) => terms.get(c.name()) ?? help.subcommandTerm(c) });
  for (const c of COMMAND_OUTLINE) program.command(c.name).description(c.description);
  return program;
}
