import { containPlugins, PluginError, type TracerHost, TracerUsageError } from '@int3/tracer-plugins';
import { CliError } from '../cli-error.js';
import { ERROR_PREFIX } from '../format-cli-error.js';
import { ShellSyntaxError, splitWords } from '../shell/split-words.js';

/** One `--tracer` value: a tracer's name and its arguments, as bcc's tools take them. */
export interface TracerSpec {
  readonly name: string;
  readonly args: readonly string[];
}

/** Splits a `--tracer` value as sh does: `'funclatency -u vfs_*'` → funclatency [-u, vfs_*]. */
export function parseTracerSpec(text: string, command?: string): TracerSpec {
  let words: string[];
  try {
    words = splitWords(text).map((w) => w.text);
  } catch (error) {
    if (error instanceof ShellSyntaxError)
      throw new CliError('usage', `bad --tracer '${text}': ${error.message}`, command);
    throw error;
  }
  if (words.length === 0) throw new CliError('usage', "empty --tracer: name a tracer (see 'int3 tracers')", command);
  return { name: words[0], args: words.slice(1) };
}

/** Exceptions that escaped while plugins were loaded and that no plugin can be named for. */
const unattributed = new WeakMap<TracerHost, unknown[]>();

/**
 * Contains the host's plugins for the rest of the process (once per host): what escapes their
 * timers, promises and subscriptions, and their `process.exit()`, become failures (see
 * `containPlugins`); a failure recorded after {@link pluginFailure} was asked is written at once and
 * makes the exit status 1.
 */
function contain(host: TracerHost): void {
  if (!host.hasPlugins || unattributed.has(host)) return;
  const escaped: unknown[] = [];
  unattributed.set(host, escaped);
  containPlugins(host, (error) => escaped.push(error));
}

/**
 * Starts the tracers a command runs, in order, and returns their names: each `--tracer` with its
 * arguments, or — without `--tracer` — every tracer of the `--plugin`s, with none. An unknown name is
 * a usage error naming those available, and so are arguments a tracer refuses (its `start` threw a
 * `TracerUsageError`: `int3: funclatency: no pattern; usage: …`); a tracer whose `start` throws
 * anything else is a failure naming it. With plugins loaded, their code is contained from here on.
 * `start` starts one (default: `host.start`; `TracerInputs.start` journals it as a session input).
 */
export function startTracers(
  host: TracerHost,
  specs: readonly string[],
  command?: string,
  start: (name: string, args: readonly string[]) => void = (name, args) => host.start(name, args),
): string[] {
  contain(host);
  const chosen = specs.length > 0 ? specs.map((s) => parseTracerSpec(s, command)) : pluginTracers(host);
  const seen = new Set<string>();
  for (const { name } of chosen) {
    if (!host.tracerNames.includes(name)) {
      throw new CliError(
        'usage',
        `unknown tracer '${name}' (available: ${host.tracerNames.join(', ')}; see 'int3 tracers')`,
        command,
      );
    }
    if (seen.has(name)) throw new CliError('usage', `--tracer ${name} is given twice`, command);
    seen.add(name);
  }
  for (const { name, args } of chosen) {
    try {
      start(name, args);
    } catch (error) {
      if (error instanceof PluginError && error.cause instanceof TracerUsageError) {
        throw new CliError('usage', `${name}: ${error.cause.message}`, command);
      }
      if (error instanceof PluginError) throw new CliError('failure', error.message);
      throw error;
    }
  }
  return chosen.map((t) => t.name);
}

function pluginTracers(host: TracerHost): TracerSpec[] {
  return host.tracers.filter((t) => t.path !== '<builtin>').map((t) => ({ name: t.name, args: [] }));
}

/**
 * With plugins loaded, lets the event loop turn once before the tracers are stopped, so a plugin's
 * timer already due and its unhandled rejections surface now — as failures named in this run's
 * report — rather than never, when the process ends right after the output.
 */
export async function settlePlugins(host: TracerHost): Promise<void> {
  if (host.hasPlugins) await new Promise((resolve) => setTimeout(resolve, 1));
}

/**
 * Stops every running tracer and renders the reports of those that did not fail, each under a
 * `# <tracer>` heading, in order; `''` when none ran. A tracer's failure (a handler, `stop` or
 * `report` threw) never throws here: it stays on `host.errors`, for {@link pluginFailure} to report
 * after the trace and the other reports are written.
 */
export function finishTracers(host: TracerHost, names: readonly string[]): string {
  try {
    host.stop();
  } catch (error) {
    // Every tracer was stopped; each failure is on host.errors.
    if (!(error instanceof PluginError)) throw error;
  }
  let out = '';
  for (const name of names) {
    if (host.hasFailed(name)) continue;
    try {
      out += `# ${name}\n${host.report(name).text.replace(/\n*$/, '\n')}`;
    } catch (error) {
      if (!(error instanceof PluginError)) throw error;
    }
  }
  return out;
}

/**
 * The failure to exit with after all output is written: one line per failing tracer (plugin, tracer,
 * what threw, the first error's message) — with `verbose`, each followed by the exception's stack —
 * then `also`'s own lines (the run's failure, if it failed too). Undefined when nothing failed.
 */
export function pluginFailure(
  host: TracerHost,
  verbose: boolean,
  also?: CliError,
  late: (line: string) => void = (line) => process.stderr.write(line),
): CliError | undefined {
  const lines: string[] = [];
  // Each failing tracer's line starts as every error line does (the first gets it from reportError).
  const describe = (message: string, cause: unknown) => {
    lines.push(lines.length === 0 ? message : `${ERROR_PREFIX} ${message}`);
    const stack = cause instanceof Error ? cause.stack : undefined;
    if (verbose && stack) lines.push(stack.replace(/^/gm, '    '));
  };
  for (const e of host.errors) describe(e.message, e.cause);
  for (const e of unattributed.get(host) ?? []) {
    const loaded = host.plugins.filter((p) => host.tracers.some((t) => t.plugin === p && t.path !== '<builtin>'));
    const names = loaded.map((p) => `'${p.name}'`).join(', ');
    describe(
      `an exception escaped while plugins ${names} ran, from code int3 cannot name: ${String(e instanceof Error ? e.message : e)}`,
      e,
    );
  }
  // What fails from now on (a plugin's timer firing late) is said at once.
  const reported = host.errors.length;
  host.errors$.subscribe((e) => {
    if (host.errors.indexOf(e) < reported) return;
    late(`${ERROR_PREFIX} ${e.message}\n`);
    process.exitCode = 1;
  });
  if (lines.length === 0) return also;
  if (also) lines.push(`${ERROR_PREFIX} ${also.message}`, ...(also.detail === undefined ? [] : [also.detail]));
  const kind = also?.kind === 'interrupted' ? 'interrupted' : 'failure';
  return new CliError(kind, lines[0], undefined, lines.length > 1 ? lines.slice(1).join('\n') : undefined);
}
