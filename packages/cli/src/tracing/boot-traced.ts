import type { TracerHost } from '@int3/tracer-plugins';
import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import { CommonOptions } from '../commands/common-options.js';
import { CliTokens } from '../container/cli-tokens.js';
import { createCliContainer } from '../container/create-cli-container.js';
import { globalOptions } from '../runtime/global-options.js';
import { insmodAll, parseInsmod } from './insmod-modules.js';
import { startTracers } from './plugin-tracers.js';
import { checkOutcome, defineEvents, runWorkloads } from './run-trace.js';
import { parseCpus, parseWorkload } from './trace-plan.js';
import { createTracedSession, readKernelImage, type TracedSession } from './traced-session.js';

/** Options of the inspection commands (`probes`, `disasm`, `dmesg`): what to set up before looking. */
export interface InspectOptions {
  readonly event?: string[];
  readonly run?: string[];
  readonly cpus: string;
  readonly image?: string;
  readonly insmod?: string[];
}

/** Adds `-e`, `--run`, `--insmod`, `--cpus` and `--image` to an inspection command (no workload runs by default). */
export function addInspectOptions(command: Command): Command {
  return command
    .addOption(CommonOptions.event('define and enable a kprobe event first (repeatable)'))
    .addOption(CommonOptions.run("run a workload first, e.g. 'mkdir /tmp/x' (repeatable)"))
    .addOption(CommonOptions.insmod())
    .addOption(CommonOptions.cpus())
    .addOption(CommonOptions.image());
}

/**
 * Boots (through the CLI container), defines and enables the `-e` events, and runs the `--run`
 * workloads to completion, with the `--plugin` tracers started and left running (so `probes list`
 * and `disasm` show their probes too).
 */
export async function bootTraced(cmd: Command, options: InspectOptions, command: string): Promise<TracedSession> {
  const usage = (m: string) => new CliError('usage', m, command);
  const cpus = parseCpus(options.cpus, usage);
  const workloads = (options.run ?? []).map((line) => parseWorkload(line, usage));
  const modules = (options.insmod ?? []).map((line) => parseInsmod(line, command));
  const image = readKernelImage(options.image, command);
  const c = createCliContainer(cmd, () => createTracedSession(image, cpus, { command }));
  const traced = c.get<TracedSession>(CliTokens.TracedSession);
  const host = await c.getAsync<TracerHost>(CliTokens.TracerHost);
  defineEvents(traced, { definitions: options.event ?? [], filters: [] }, command);
  startTracers(host, globalOptions(cmd).tracers, command);
  insmodAll(traced, modules);
  if (workloads.length > 0) checkOutcome(runWorkloads(traced, workloads));
  return traced;
}
