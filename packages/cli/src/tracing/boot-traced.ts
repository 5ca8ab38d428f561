import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import { checkOutcome, defineEvents, runWorkloads } from './run-trace.js';
import { parseCpus, parseWorkload } from './trace-plan.js';
import { createTracedSession, readKernelImage, type TracedSession } from './traced-session.js';

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

/** Options of the inspection commands (`probes`, `disasm`, `dmesg`): what to set up before looking. */
export interface InspectOptions {
  readonly event?: string[];
  readonly run?: string[];
  readonly cpus: string;
  readonly image?: string;
}

/** Adds `-e`, `--run`, `--cpus` and `--image` to an inspection command (no workload runs by default). */
export function addInspectOptions(command: Command): Command {
  return command
    .option('-e, --event <definition>', 'define and enable a kprobe event first (repeatable)', collect)
    .option('--run <workload>', "run a workload first, e.g. 'mkdir /tmp/x' (repeatable)", collect)
    .option('--cpus <n>', 'CPUs to boot', '2')
    .option('--image <vmlinux>', 'kernel image (default: the sample kernel)');
}

/** Boots, defines and enables the `-e` events, and runs the `--run` workloads to completion. */
export function bootTraced(options: InspectOptions, command: string): TracedSession {
  const usage = (m: string) => new CliError('usage', m, command);
  const cpus = parseCpus(options.cpus, usage);
  const workloads = (options.run ?? []).map((line) => parseWorkload(line, usage));
  const traced = createTracedSession(readKernelImage(options.image, command), cpus);
  defineEvents(traced, { definitions: options.event ?? [], filters: [] }, command);
  if (workloads.length > 0) checkOutcome(runWorkloads(traced, workloads));
  return traced;
}
