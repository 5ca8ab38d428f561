import { bpftraceAttachesProbes, listBpftraceProbes, PluginError, type TracerHost } from '@int3/tracer-plugins';
import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import { CliTokens } from '../container/cli-tokens.js';
import { createCliContainer } from '../container/create-cli-container.js';
import { AtomicOutput } from '../runtime/atomic-output.js';
import { environmentOf } from '../runtime/cli-environment.js';
import type { Interrupt } from '../runtime/interrupt.js';
import { readBoundedFile } from '../runtime/read-bounded-file.js';
import type { Terminal } from '../runtime/terminal.js';
import { type BpftraceSpec, type BpftraceWriter, pumpBpftrace, startBpftrace } from '../tracing/bpftrace-run.js';
import { insmodAll, parseInsmod } from '../tracing/insmod-modules.js';
import { checkOutcome } from '../tracing/run-trace.js';
import { runWorkloadsSliced, type SlicedOutcome } from '../tracing/run-workloads-sliced.js';
import { parseTracePlan } from '../tracing/trace-plan.js';
import { STDOUT_PATH } from '../tracing/trace-sink.js';
import { createTracedSession, readKernelImage, type TracedSession } from '../tracing/traced-session.js';
import { writeOut } from '../write-out.js';
import { CommonOptions } from './common-options.js';

const EXAMPLE = `
Examples:
  $ int3 bpftrace -e 'kprobe:vfs_read { @[comm] = count(); }' --run 'cat /etc/motd'
  Attached 1 probe


  @[cat]: 2
  $ int3 bpftrace -e 'kretprobe:vfs_read { @bytes = hist(retval); }' -- cat /etc/motd
  $ int3 bpftrace -e 'begin { printf("hello\\n"); exit(); }'
  $ int3 bpftrace -l 'kprobe:vfs_*'
  $ int3 record -o run.int3log --run 'cat /etc/motd' && int3 replay run.int3log --bpftrace 'k:vfs_read { @ = count(); }'

The program runs until every workload exited (or exit()), then its end probes run and its maps are
printed. A program of begin/end probes only runs no workload. Time (nsecs, interval, profile) is the
guest's virtual time, so every run prints the same. printf output is written as it comes. Exit
status: 0 ok, the code of exit(code), 1 a program error (printed as bpftrace prints it) or a failed
run, 2 bad option, 130 interrupted (the end probes and maps are printed first).`;

/** The largest program file read (bpftrace programs are a few KiB; this only bounds a mistake). */
const MAX_PROGRAM_BYTES = 1024 * 1024;

/** Options of `int3 bpftrace`. */
interface BpftraceOptions {
  readonly expr?: string;
  readonly list?: string | boolean;
  readonly run?: string[];
  readonly cpus?: string;
  readonly image?: string;
  readonly insmod?: string[];
  readonly format?: string;
  readonly output?: string;
}

/**
 * Registers `int3 bpftrace [-e PROGRAM | FILE] [--run W]… [-- W ARGS…] [--cpus N] [--image …]
 * [--insmod …] [-f text|json] [-o FILE]` and `int3 bpftrace -l [GLOB]`: bpftrace's language on the
 * emulated kernel, as the built-in bpftrace tracer plugin runs it.
 *
 * @see bpftrace(8)
 */
export function registerBpftraceCommand(program: Command): void {
  program
    .command('bpftrace')
    .description("run a bpftrace program (bpftrace's language and output) on kprobes while workloads run")
    .argument('[args...]', 'the program file (without -e), then after --: one workload and its arguments')
    .option('-e, --expr <program>', "the program, e.g. 'kprobe:vfs_read { @[comm] = count(); }'")
    .option('-l, --list [glob]', 'list the probes one can attach, as kprobe:NAME (optionally matching a glob)')
    .addOption(CommonOptions.run("a workload and its arguments, e.g. 'cat /etc/motd' (repeatable; default hello)"))
    .addOption(CommonOptions.insmod())
    .addOption(CommonOptions.cpus())
    .addOption(CommonOptions.image())
    .option('-f, --format <format>', "bpftrace's output format: text or json (JSON Lines)", 'text')
    .option('-o, --output <file>', "write the program's output to a file instead of stdout ('-': stdout)")
    .addHelpText('after', EXAMPLE)
    .action(async (args: string[], options: BpftraceOptions, cmd: Command) => {
      if (options.list !== undefined) {
        listProbes(cmd, options, args);
        return;
      }
      const spec = programSpec(options, args);
      const workloadArgs = options.expr === undefined ? args.slice(1) : args;
      const attaches = bpftraceAttachesProbes(spec.source);
      const plan = parseTracePlan({ run: options.run, workload: workloadArgs, cpus: options.cpus }, 'bpftrace');
      const modules = (options.insmod ?? []).map((line) => parseInsmod(line, 'bpftrace'));
      const image = readKernelImage(options.image, 'bpftrace');
      // -o is opened before the run (a path that cannot be written fails now) and renamed into place after.
      const toFile = options.output !== undefined && options.output !== STDOUT_PATH;
      const file = toFile ? AtomicOutput.open(options.output as string, 'bpftrace') : undefined;
      const c = createCliContainer(cmd, () => createTracedSession(image, plan.cpus, { command: 'bpftrace' }));
      const traced = c.get<TracedSession>(CliTokens.TracedSession);
      const host = await c.getAsync<TracerHost>(CliTokens.TracerHost);
      insmodAll(traced, modules);
      startBpftrace(host, spec, 'bpftrace');
      const env = environmentOf(cmd);
      const writer: BpftraceWriter = {
        stdout: file ? (s) => file.write(s) : (s) => writeOut(cmd, s),
        stderr: env.writeErr,
      };
      // Output is written as it comes: after start (`Attached N probes`, the begin probes), after each
      // slice of the run, and after stop (the end probes and the maps).
      let exit = pumpBpftrace(host, writer);
      let outcome: SlicedOutcome | undefined;
      if (attaches && exit === undefined) {
        try {
          outcome = await runWorkloadsSliced(traced, plan.workloads, {
            interrupt: c.get<Interrupt>(CliTokens.Interrupt),
            terminal: c.get<Terminal>(CliTokens.Terminal),
            onSlice: () => {
              exit = pumpBpftrace(host, writer);
            },
            until: () => exit !== undefined,
            contain: (slice) => host.contained(slice),
          });
        } catch (error) {
          if (!(error instanceof PluginError)) throw error;
          throw new CliError('failure', error.message);
        }
      }
      try {
        host.stop();
      } catch (error) {
        if (!(error instanceof PluginError)) throw error;
      }
      const last = pumpBpftrace(host, writer);
      exit ??= last;
      file?.commit();
      // exit(code) decides the status (bpftrace exits with it); else the run's outcome does.
      if (exit !== undefined) {
        if (exit !== 0) process.exitCode = exit;
        return;
      }
      if (outcome && outcome.reason !== 'stopped') checkOutcome(outcome);
    });
}

/** The program: `-e`'s text (named `stdin` in errors, as bpftrace names it) or the file's. */
function programSpec(options: BpftraceOptions, args: readonly string[]): BpftraceSpec {
  const format = options.format ?? 'text';
  if (format !== 'text' && format !== 'json') {
    throw new CliError('usage', `Invalid output format "${format}" (text or json)`, 'bpftrace');
  }
  if (options.expr !== undefined) return { source: options.expr, filename: 'stdin', format };
  const file = args[0];
  if (file === undefined) throw new CliError('usage', 'give a program: -e PROGRAM or a program file', 'bpftrace');
  const bytes = readBoundedFile(
    file,
    MAX_PROGRAM_BYTES,
    (why) => new CliError('usage', `cannot read program '${file}': ${why}`, 'bpftrace'),
  );
  return { source: Buffer.from(bytes).toString('utf8'), filename: file, format };
}

/** `-l [GLOB]`: the probe-able functions, as `kprobe:NAME`. */
function listProbes(cmd: Command, options: BpftraceOptions, args: readonly string[]): void {
  const glob = typeof options.list === 'string' ? options.list : (args[0] ?? '*');
  const image = readKernelImage(options.image, 'bpftrace');
  const c = createCliContainer(cmd, () => createTracedSession(image, 1));
  const { session } = c.get<TracedSession>(CliTokens.TracedSession);
  writeOut(cmd, listBpftraceProbes(session.machine.kallsyms, glob));
}
