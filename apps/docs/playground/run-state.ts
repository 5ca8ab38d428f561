import type { PlaygroundRequester } from './playground-client.js';
import { filterWrite, type PlaygroundState, shellQuote } from './playground-state.js';
import type { OutputChunk } from './protocol.js';

/** What one run of a state shows. */
export interface RunResult {
  /** `cat trace_pipe` after the workloads: the lines `int3 trace` prints. */
  trace: string;
  /** `/sys/kernel/debug/kprobes/list`. */
  list: string;
  /** `kprobe_profile`. */
  profile: string;
  /** What the workloads printed. */
  console: string;
  /** Failures: the shell's messages, and the new `error_log` lines (with their carets). */
  errors: string;
  /** The shell lines of the state, each after `tracefs# `, with their output. */
  shell: string;
  /** True when the instruction budget stopped a workload. */
  budgetExceeded: boolean;
  instructions: number;
  /** Of those, the instructions retired in compiled code. */
  compiled: number;
  /** The seed modules the machine's `insmod` takes, by path. */
  modules: readonly string[];
}

const text = (output: readonly OutputChunk[], stream?: 'out' | 'err') =>
  output
    .filter((c) => stream === undefined || c.stream === stream)
    .map((c) => c.text)
    .join('');

/**
 * Runs a playground state on a fresh machine, as `int3 trace` does with the same inputs, through the
 * `int3 tracefs` shell: the sysctl, each definition appended to `kprobe_events` (a refused one stops
 * the run and shows `error_log`'s new lines, as the CLI prints them), the filters, `events/enable`,
 * the workloads, then `trace_pipe`, `kprobes/list` and `kprobe_profile`; then the state's shell lines.
 */
export async function runState(client: PlaygroundRequester, state: PlaygroundState): Promise<RunResult> {
  const result: RunResult = {
    trace: '',
    list: '',
    profile: '',
    console: '',
    errors: '',
    shell: '',
    budgetExceeded: false,
    instructions: 0,
    compiled: 0,
    modules: [],
  };
  const booted = await client.request({ type: 'boot', cpus: state.cpus });
  if (booted.type === 'error') {
    result.errors = `${booted.message}\n`;
    return result;
  }
  if (booted.type === 'booted') result.modules = booted.modules;
  const exec = async (line: string) => {
    const reply = await client.request({ type: 'exec', line, budget: state.budget });
    if (reply.type === 'error') throw new Error(reply.message);
    if (reply.type !== 'done') throw new Error(`int3: unexpected reply ${reply.type}`);
    result.instructions = reply.instructions;
    result.compiled = reply.compiled;
    result.budgetExceeded ||= reply.budgetExceeded;
    return reply;
  };
  const errorLog = async () => text((await exec('cat error_log')).output, 'out');
  try {
    if (!state.optimize) await exec('echo 0 > /proc/sys/debug/kprobes-optimization');
    for (const definition of state.definitions.filter((d) => d.trim() !== '')) {
      const before = await errorLog();
      const reply = await exec(`echo ${shellQuote(definition)} >> kprobe_events`);
      if (reply.failed) {
        const after = await errorLog();
        result.errors += `bad probe definition '${definition}': ${text(reply.output, 'err')}${after.slice(before.length)}`;
        return result;
      }
    }
    for (const filter of state.filters.filter((f) => f.trim() !== '')) {
      const target = filterWrite(filter);
      if (target === undefined) {
        result.errors += `int3: bad filter '${filter}': expected EVENT=EXPR\n`;
        return result;
      }
      const reply = await exec(`echo ${shellQuote(target.expr)} > ${target.path}`);
      if (reply.failed) {
        result.errors += `bad filter '${filter}': ${text(reply.output, 'err')}`;
        return result;
      }
    }
    if (state.definitions.some((d) => d.trim() !== '')) await exec('echo 1 > events/enable');
    for (const workload of state.workloads.filter((w) => w.trim() !== '')) {
      const reply = await exec(`run ${workload}`);
      result.console += text(reply.output, 'out');
      result.errors += text(reply.output, 'err');
    }
    result.trace = text((await exec('cat trace_pipe')).output, 'out');
    result.list = text((await exec('cat /sys/kernel/debug/kprobes/list')).output, 'out');
    result.profile = text((await exec('cat kprobe_profile')).output, 'out');
    for (const line of state.shell) result.shell += await shellLine(exec, line);
  } catch (error) {
    result.errors += `${(error as Error).message}\n`;
  }
  return result;
}

/** Runs one shell line and gives it as a terminal shows it: the prompt, the line, its output. */
export async function shellLine(
  exec: (line: string) => Promise<{ readonly output: readonly OutputChunk[] }>,
  line: string,
): Promise<string> {
  const reply = await exec(line);
  return `tracefs# ${line}\n${text(reply.output)}`;
}

/** One ftrace line split into the columns of the playground's table, or undefined for a header. */
export interface TraceRow {
  readonly task: string;
  readonly pid: string;
  readonly cpu: string;
  readonly flags: string;
  readonly timestamp: string;
  readonly event: string;
  readonly args: string;
}

/** Splits `trace_pipe` lines (`cat-1 [000] d.... 0.000010: myprobe: (do_sys_open+0x0/0x40) …`). */
export function traceRows(trace: string): TraceRow[] {
  const rows: TraceRow[] = [];
  for (const line of trace.split('\n')) {
    const m = /^\s*(.+)-(\d+)\s+\[(\d+)\]\s+(\S+)\s+(\d+\.\d+): ([^:]+): (.*)$/.exec(line);
    if (m !== null)
      rows.push({ task: m[1], pid: m[2], cpu: m[3], flags: m[4], timestamp: m[5], event: m[6], args: m[7] });
  }
  return rows;
}
