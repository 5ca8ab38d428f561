import { checkExecArgs, KernelError, WORKLOADS } from '@int3/kernel';
import { MAX_BUFFER_SIZE_KB } from '@int3/tracer-plugins';
import { suggestNames } from '../call/suggest-names.js';
import { CliError } from '../cli-error.js';
import { ShellSyntaxError, splitWords } from '../shell/split-words.js';

/** Output formats of the tracing commands. */
export type TraceFormat = 'text' | 'json' | 'chrome';

/** Every {@link TraceFormat}, in the order help lists them. */
export const TRACE_FORMATS: readonly TraceFormat[] = ['text', 'json', 'chrome'];

/** What `int3 trace` (and `record`, `replay -e`) will do, checked before the machine boots. */
export interface TracePlan {
  /** `kprobe_events` lines, in order. */
  readonly definitions: readonly string[];
  /** `[group/]event` and its filter expression. */
  readonly filters: readonly { readonly event: string; readonly expr: string }[];
  /** `[group/]event` and a trigger command for its `trigger` file, in order. */
  readonly triggers: readonly { readonly event: string; readonly command: string }[];
  /** Workloads to start together, as argv. */
  readonly workloads: readonly (readonly string[])[];
  readonly cpus: number;
  readonly format: TraceFormat;
  /** False with `--no-optimize`: `debug.kprobes-optimization` is set to 0 before the events are defined. */
  readonly optimize: boolean;
  /** `--buffer-size`: `buffer_size_kb` (KiB per CPU) written before the events are defined; default the kernel's. */
  readonly bufferSizeKb?: number;
}

/** The options commander collects for the tracing commands. */
export interface TraceOptions {
  readonly event?: string[] | undefined;
  readonly filter?: string[] | undefined;
  readonly trigger?: string[] | undefined;
  readonly run?: string[] | undefined;
  /** The words after `--` (`int3 trace … -- cat /etc/motd`): one more workload, already split. */
  readonly workload?: readonly string[] | undefined;
  readonly cpus?: string | undefined;
  readonly format?: string | undefined;
  /** commander's `--no-optimize` (undefined: not offered, as for `replay`). */
  readonly optimize?: boolean | undefined;
  /** `--buffer-size <KiB per CPU>`. */
  readonly bufferSize?: string | undefined;
}

/** The workload run when no `--run` is given. */
export const DEFAULT_WORKLOAD = 'hello';

/**
 * Checks and normalises the tracing options: `--run` lines are split as sh does and must name a
 * sample workload, the words after `--` are one more (as `perf record -- cmd`), `hello` runs when
 * there is none; `--filter` is `event=expr`, `--trigger` `event=command`; `--cpus` is 1..64. Throws a usage {@link CliError}.
 *
 * @example
 * parseTracePlan({ event: ['p:open do_sys_open'], run: ['cat /etc/motd'] }, 'trace');
 */
export function parseTracePlan(options: TraceOptions, command: string): TracePlan {
  const usage = (message: string) => new CliError('usage', message, command);
  const filters = (options.filter ?? []).map((f) => {
    const eq = f.indexOf('=');
    if (eq <= 0) throw usage(`bad --filter '${f}': expected <event>=<expression>, e.g. myprobe='dfd == 3'`);
    return { event: f.slice(0, eq), expr: f.slice(eq + 1) };
  });
  const triggers = (options.trigger ?? []).map((f) => {
    const eq = f.indexOf('=');
    if (eq <= 0) throw usage(`bad --trigger '${f}': expected <event>=<command>, e.g. myprobe='hist:keys=common_pid'`);
    return { event: f.slice(0, eq), command: f.slice(eq + 1) };
  });
  const workloads = (options.run ?? []).map((line) => parseWorkload(line, usage));
  if (options.workload !== undefined && options.workload.length > 0) {
    workloads.push(checkWorkload([...options.workload], usage));
  }
  if (workloads.length === 0) workloads.push([DEFAULT_WORKLOAD]);
  return {
    definitions: options.event ?? [],
    filters,
    triggers,
    workloads,
    cpus: parseCpus(options.cpus ?? '2', usage),
    format: parseFormat(options.format ?? 'text', usage),
    optimize: options.optimize !== false,
    ...(options.bufferSize === undefined ? {} : { bufferSizeKb: parseBufferSize(options.bufferSize, usage) }),
  };
}

/** Reads `--buffer-size`: KiB per CPU, an integer from 1 to `MAX_BUFFER_SIZE_KB` (64 MiB, the tracefs' own limit). */
export function parseBufferSize(text: string, usage: (m: string) => CliError): number {
  const n = Number(text);
  if (!/^[0-9]+$/.test(text) || n < 1 || n > MAX_BUFFER_SIZE_KB) {
    throw usage(`bad --buffer-size '${text}': expected KiB per CPU, 1 to ${MAX_BUFFER_SIZE_KB}`);
  }
  return n;
}

/** The most CPUs the machine boots (its `NR_CPUS`, as the kernel package checks). @see Machine */
export const MAX_CPUS = 64;

/** Reads `--cpus`: an integer from 1 to {@link MAX_CPUS}. */
export function parseCpus(text: string, usage: (m: string) => CliError): number {
  const n = Number(text);
  if (!/^[0-9]+$/.test(text) || n < 1 || n > MAX_CPUS) throw usage(`bad --cpus '${text}': expected 1 to ${MAX_CPUS}`);
  return n;
}

function parseFormat(text: string, usage: (m: string) => CliError): TraceFormat {
  if (text !== 'text' && text !== 'json' && text !== 'chrome') {
    throw usage(`bad --format '${text}': expected text, json or chrome`);
  }
  return text;
}

/** Splits a workload line and checks its program is one of the sample workloads. */
export function parseWorkload(line: string, usage: (m: string) => CliError): string[] {
  let argv: string[];
  try {
    argv = splitWords(line).map((w) => w.text);
  } catch (error) {
    if (error instanceof ShellSyntaxError) throw usage(`bad --run '${line}': ${error.message}`);
    throw error;
  }
  if (argv.length === 0) throw usage('empty --run: name a workload');
  return checkWorkload(argv, usage);
}

/**
 * Checks that an argv names one of the sample workloads (suggesting the nearest names if not) and fits
 * the guest's argument limit (`E2BIG`, as execve), before the machine boots.
 */
export function checkWorkload(argv: string[], usage: (m: string) => CliError): string[] {
  try {
    checkExecArgs(argv);
  } catch (error) {
    if (error instanceof KernelError) throw usage(`cannot run '${argv[0].slice(0, 40)}': ${error.message}`);
    throw error;
  }
  if (!WORKLOADS.includes(argv[0])) {
    const near = suggestNames(argv[0], WORKLOADS);
    const hint = near.length > 0 ? `did you mean ${near.join(', ')}? ` : '';
    throw usage(`unknown workload '${argv[0]}': ${hint}(workloads: ${WORKLOADS.join(', ')})`);
  }
  return argv;
}
