import { formatTimestamp, KernelError, WORKLOADS } from '@int3/kernel';
import { TraceFsError } from '@int3/tracer-plugins';
import { callKernelFunction, resolveKernelFunction } from '../call/call-kernel-function.js';
import { parseCallArgument } from '../call/parse-call-argument.js';
import { CliError } from '../cli-error.js';
import { escapeControls } from '../runtime/escape-controls.js';
import type { Interrupt, StopSignal } from '../runtime/interrupt.js';
import { insmodModule, readModuleFile } from '../tracing/insmod-modules.js';
import { strerror } from '../tracing/run-trace.js';
import { runWorkloadsSliced, SLICE_NS } from '../tracing/run-workloads-sliced.js';
import { parseWorkload } from '../tracing/trace-plan.js';
import { applyTracefsWrite, type TracedSession } from '../tracing/traced-session.js';
import { SHELL_COMMANDS } from './complete-shell-line.js';
import { ShellSyntaxError, type ShellWord, splitWords } from './split-words.js';

/** Where a shell's output goes. */
export interface ShellOutput {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

/** What `help` prints: each command with its usage, as bash's `help` lists its builtins. */
export const SHELL_HELP = `\
echo [-n] [TEXT...] [> PATH | >> PATH]   print TEXT, or write it to a file (>> appends)
cat PATH...                            print files (trace, trace_pipe, kprobe_events, error_log, ...)
ls [PATH]                              list a directory (default /sys/kernel/tracing)
run WORKLOAD [ARGS...]                 run a sample workload to its end (${WORKLOADS.join(', ')})
call SYMBOL [ARGS...]                  call a kernel function: 42, 0x10, str:TEXT, buf:N; prints return:
sleep SECONDS                          let virtual time pass (timers, the kprobe optimizer)
insmod FILE [NAME=VALUE...]            load a kernel module (.ko) from the host, with its parameters
rmmod NAME                             unload a module
dmesg                                  print the kernel log (printk)
help                                   this list
# TEXT                                 a comment
Relative paths are under /sys/kernel/tracing; the kprobes files are /sys/kernel/debug/kprobes/.
On a terminal: Tab completes, up/down walks the history, Ctrl-C stops a run, exit or Ctrl-D leaves.
`;

/** One second of virtual time, in nanoseconds. */
const NS_PER_SECOND = 1_000_000_000;

/**
 * A line-oriented shell over one machine's tracefs (relative paths are under `/sys/kernel/tracing`)
 * and debugfs kprobes files: `echo [-n] [TEXT] [> PATH | >> PATH]`, `cat PATH`, `ls [PATH]`,
 * `run WORKLOAD [ARGS…]`, `call SYMBOL [ARGS…]`, `sleep N`, `insmod FILE [name=value…]`, `rmmod NAME`, `dmesg`, `help`, `#` comments. Writes, runs and
 * module loads are session inputs. A failed command prints a message on `err` and the shell goes on;
 * {@link failed} tells whether any did.
 *
 * @see Documentation/trace/kprobetrace.rst (the commands it lets one type as written there)
 * @example
 * const sh = new TracefsShell(traced, { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) });
 * await sh.execute(`echo 'p:myprobe do_sys_open' > kprobe_events`);
 */
export class TracefsShell {
  /** True once any command failed. */
  failed = false;
  /** True once Ctrl-C stopped a command (a script stops there, as `sh` does). */
  interrupted = false;
  /** The signal that stopped the last interrupted command. */
  stopSignal: StopSignal | undefined;

  constructor(
    private readonly t: TracedSession,
    private readonly io: ShellOutput,
    /** Ctrl-C: `run` stops at its next slice of virtual time when it is requested. */
    private readonly interrupt?: Interrupt,
  ) {}

  /** Runs every line of a script; stops after a command Ctrl-C interrupted. */
  async executeScript(text: string): Promise<void> {
    for (const line of text.split('\n')) {
      await this.execute(line);
      if (this.interrupted) return;
    }
  }

  /** Runs one line; a failure is reported and remembered, never thrown. */
  async execute(line: string): Promise<void> {
    let words: ShellWord[];
    try {
      words = splitWords(line);
    } catch (error) {
      if (error instanceof ShellSyntaxError) {
        this.fail(`int3: syntax error: ${error.message}`);
        return;
      }
      throw error;
    }
    if (words.length === 0) return;
    const [name, ...args] = words;
    try {
      await this.dispatch(name.text, args);
    } catch (error) {
      if (error instanceof TraceFsError) {
        this.fail(`${name.text}: ${args.at(-1)?.text ?? ''}: ${strerror(error)}`);
        return;
      }
      if (error instanceof KernelError || error instanceof CliError) {
        this.fail(`${name.text}: ${error.message}`);
        return;
      }
      throw error;
    }
  }

  private async dispatch(name: string, args: ShellWord[]): Promise<void> {
    const texts = args.map((a) => a.text);
    switch (name) {
      case 'echo':
        this.echo(args);
        return;
      case 'cat':
        if (texts.length === 0) {
          this.fail('cat: missing operand');
          return;
        }
        // saved_cmdlines holds the guest's comms, error_log and kprobe_events what was written.
        for (const path of texts) this.io.out(escapeControls(this.t.fs.read(path)));
        return;
      case 'ls':
        for (const entry of this.t.fs.ls(texts[0] ?? '.')) this.io.out(`${entry}\n`);
        return;
      case 'run':
        await this.run(texts);
        return;
      case 'call':
        this.call(texts);
        return;
      case 'sleep':
        await this.sleep(texts[0]);
        return;
      case 'insmod':
        this.insmod(texts[0], texts.slice(1));
        return;
      case 'help':
        this.io.out(SHELL_HELP);
        return;
      case 'rmmod':
        if (texts[0] === undefined) {
          this.fail('rmmod: missing module name');
          return;
        }
        this.t.session.apply({ type: 'input:rmmod', name: texts[0].replace(/\.ko$/, '') });
        return;
      case 'dmesg':
        // printk lines of guest modules: escaped before they reach a terminal, as `int3 dmesg` does.
        this.io.out(escapeControls(this.t.session.machine.printk.dmesg()));
        return;
      default:
        this.fail(`int3: ${name}: command not found (${SHELL_COMMANDS.join(', ')})`);
        return;
    }
  }

  /** `echo [-n] TEXT…` printed, or written with `>` / `>>` (an empty text writes a newline). */
  private echo(args: ShellWord[]): void {
    let words = args;
    let newline = true;
    if (words[0]?.text === '-n' && !words[0].quoted) {
      newline = false;
      words = words.slice(1);
    }
    const redirect = words.findIndex((w) => !w.quoted && (w.text === '>' || w.text === '>>'));
    const text = (redirect < 0 ? words : words.slice(0, redirect)).map((w) => w.text).join(' ') + (newline ? '\n' : '');
    if (redirect < 0) {
      this.io.out(text);
      return;
    }
    const target = words[redirect + 1];
    if (target === undefined) {
      this.fail('int3: syntax error: a redirection needs a file');
      return;
    }
    try {
      applyTracefsWrite(this.t, target.text, text, words[redirect].text === '>>');
    } catch (error) {
      if (error instanceof TraceFsError) {
        this.fail(`echo: write error: ${strerror(error)}`);
        return;
      }
      throw error;
    }
  }

  /**
   * `run WORKLOAD [ARGS…]`: to completion, in slices of virtual time so Ctrl-C can stop it (the
   * machine stays as it was at that slice's end, the trace keeps what was recorded).
   */
  private async run(argv: string[]): Promise<void> {
    if (argv.length === 0) {
      this.fail(`run: name a workload (${WORKLOADS.join(', ')})`);
      return;
    }
    const usage = (m: string) => new CliError('usage', m);
    const argvParsed = parseWorkload(argv.map(shellQuote).join(' '), usage);
    const m = this.t.session.machine;
    const start = m.consoleLog.total;
    const outcome = this.interrupt
      ? await runWorkloadsSliced(this.t, [argvParsed], { interrupt: this.interrupt })
      : this.t.session.runWorkloads([argvParsed]);
    // The workload's own output, as a shell shows what a command printed (its control characters escaped).
    for (const write of m.consoleLog.since(start)) this.io.out(escapeControls(write.text));
    if (outcome.reason === 'interrupted') {
      this.interrupted = true;
      this.stopSignal = outcome.signal;
      this.fail(`run: interrupted at ${formatTimestamp(outcome.at).trim()} s of virtual time`);
      this.interrupt?.clear();
    } else if (outcome.reason !== 'done') {
      this.fail(`run: the run ended: ${outcome.reason}`);
    }
  }

  /** `call SYMBOL [ARGS…]`: calls a kernel function as `int3 call` does and prints `return: <decimal>`. */
  private call(argv: string[]): void {
    const [symbol, ...rest] = argv;
    if (symbol === undefined) {
      this.fail('call: name a kernel function, e.g. call strlen str:hello');
      return;
    }
    if (rest.length > 6) {
      this.fail(`call: too many arguments (${rest.length}); at most 6`);
      return;
    }
    resolveKernelFunction(this.t, symbol, 'call');
    const { value } = callKernelFunction(this.t, symbol, rest.map(parseCallArgument), 'call');
    this.io.out(`return: ${value}\n`);
  }

  /** `sleep N`: virtual time passes, in slices (a signal stops it at the next one, as it does `run`). */
  private async sleep(seconds: string | undefined): Promise<void> {
    const s = Number(seconds);
    if (seconds === undefined || !Number.isFinite(s) || s < 0 || s * NS_PER_SECOND > Number.MAX_SAFE_INTEGER / 2) {
      this.fail(`sleep: invalid time interval '${seconds ?? ''}'`);
      return;
    }
    const m = this.t.session.machine;
    const until = m.clock(0) + Math.round(s * NS_PER_SECOND);
    if (!this.interrupt) {
      this.t.session.apply({ type: 'input:run', deadlineNs: until });
      return;
    }
    while (m.clock(0) < until) {
      // An idle machine passes the time in one step (cheaply); one with work, in slices a signal stops.
      const busy = m.sched.anyRunnable() || m.sched.nextWakeup() !== undefined;
      const to = busy ? Math.min(until, m.clock(0) + SLICE_NS) : until;
      this.t.session.apply({ type: 'input:run', deadlineNs: to });
      await new Promise((resolve) => setImmediate(resolve));
      if (this.interrupt.requested) {
        this.stopSignal = this.interrupt.signal;
        this.interrupted = true;
        this.fail(`sleep: interrupted at ${formatTimestamp(m.clock(0)).trim()} s of virtual time`);
        this.interrupt.clear();
        return;
      }
    }
  }

  /** `insmod FILE [name=value…]`: loads a module (journaled with its bytes and their hash). */
  private insmod(file: string | undefined, params: readonly string[]): void {
    if (file === undefined) {
      this.fail('insmod: missing module file');
      return;
    }
    try {
      insmodModule(this.t, file, readModuleFile(file), params);
    } catch (error) {
      if (error instanceof CliError) {
        this.fail(error.message);
        return;
      }
      throw error;
    }
  }

  private fail(message: string): void {
    this.failed = true;
    this.io.err(`${message}\n`);
  }
}

/** Quotes a word for {@link splitWords}, so an argument keeps its blanks. */
function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
