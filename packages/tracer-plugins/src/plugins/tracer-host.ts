import { AsyncLocalStorage } from 'node:async_hooks';
import { Container } from 'inversify';
import { type Observable, Subject } from 'rxjs';
import type { TraceFs } from '../tracefs/trace-fs.js';
import { CallTimeout, callWithTimeout } from './call-with-timeout.js';
import { installTracerPlugin, type LoadedTracerPlugin, loadTracerPlugin } from './load-tracer-plugin.js';
import { describeThrown, PluginError, PluginErrorCode } from './plugin-error.js';
import { type PluginCallSite, PluginGuard } from './plugin-guard.js';
import { pluginRoot, stackHasFrameIn } from './plugin-root.js';
import type { Tracer, TracerOutput, TracerReport } from './tracer.js';
import type { TracerContext } from './tracer-context.js';
import type { TracerPlugin, TracerPluginManifest } from './tracer-plugin.js';
import { TracerTokens } from './tracer-tokens.js';

interface Entry {
  readonly tracer: Tracer;
  readonly plugin: string;
  /** The file it was imported from, `<builtin>` for a plugin installed in hand. */
  readonly path: string;
  readonly guard: PluginGuard;
  running: boolean;
}

/** Whose code runs: a plugin's guard and, when one tracer's, its name. */
export interface PluginOwner {
  readonly guard: PluginGuard;
  readonly tracer: string | undefined;
}

/** What `int3 tracers` lists about one tracer. */
export interface TracerInfo {
  readonly name: string;
  /** Its one-line {@link Tracer.description}, `''` when it has none. */
  readonly description: string;
  readonly plugin: TracerPluginManifest;
  /** The file its plugin was imported from, `<builtin>` for one installed in hand. */
  readonly path: string;
}

/** The host's calls into a tracer, as its failures name them. */
type TracerCall = 'start' | 'stop' | 'report' | 'drain';

/** What a tracer that only reports drains. */
const NOTHING_DRAINED: TracerOutput = Object.freeze({ stdout: '', stderr: '' });

/**
 * Loads tracer plugins for one machine and runs their tracers, turning every failure of a plugin
 * (load, `start`, `stop`, `report`) into a {@link PluginError} naming it and the tracer. A tracer whose
 * `start` throws is stopped again, so a half-registered tool leaves no probe behind. At run time each
 * plugin works through its own {@link PluginGuard}ed kprobes: a probe handler that throws while the
 * machine runs is contained and that tracer's probes are disabled; the machine and other tracers go
 * on. Every failure is recorded once per tracer on {@link TracerHost.errors} and
 * {@link TracerHost.errors$}, so a caller can print the others' reports and then name the failures.
 *
 * @see kernel/trace/trace.c register_tracer(), tracing_set_tracer()
 * @example
 * const host = new TracerHost(fs);
 * await host.install(funclatencyPlugin);
 * host.start('funclatency', ['vfs_read']);
 * m.run();
 * host.stop('funclatency');
 * console.log(host.report('funclatency').text);
 */
export class TracerHost {
  /** The context every tracer is started with (`args` replaced per start). */
  readonly context: TracerContext;
  readonly #container = new Container();
  readonly #tracers = new Map<string, Entry>();
  readonly #plugins: TracerPluginManifest[] = [];
  readonly #guards = new Map<string, PluginGuard>();
  readonly #errors: PluginError[] = [];
  readonly #errorSubject = new Subject<PluginError>();
  /** Every plugin failure, the first of each tracer (or whole plugin) only, as it happens. */
  readonly errors$: Observable<PluginError> = this.#errorSubject.asObservable();
  /** Where plugin code runs now (see {@link PluginCallSite}). */
  readonly site: PluginCallSite = { guard: undefined, tracer: undefined, what: undefined };
  /**
   * The watchdog's limit in ms for one call into plugin code or one {@link contained} slice of the run
   * (0: none). Only loaded plugins are watched; built-in tracers alone never are.
   */
  watchdogMs = 0;
  /** The tracer whose `start`/`stop`/`report` started the async work that runs now (timers, promises). */
  readonly #async = new AsyncLocalStorage<PluginOwner>();
  /** Each loaded plugin's code directory (or file), to attribute a stack trace. */
  readonly #roots: { readonly root: string; readonly guard: PluginGuard }[] = [];

  constructor(traceFs: TraceFs) {
    const v = traceFs.view;
    // Only the TracerView's members: the tracefs' own extras (raw pages, module hooks) stay its own.
    this.context = Object.freeze({
      nrCpus: v.nrCpus,
      clock: v.clock,
      regs: v.regs,
      memory: v.memory,
      tasks: v.tasks,
      symbols: v.symbols,
      kprobes: v.kprobes,
      timers: v.timers,
      buffer: traceFs.buffer,
      args: Object.freeze([]),
    });
    const c = this.#container;
    c.bind(TracerTokens.Kprobes).toConstantValue(v.kprobes);
    c.bind(TracerTokens.TraceBuffer).toConstantValue(traceFs.buffer);
    c.bind(TracerTokens.Clock).toConstantValue(v.clock);
    c.bind(TracerTokens.Context).toConstantValue(this.context);
  }

  /** Plugin failures so far, in order: the first of each tracer (or whole plugin) only. */
  get errors(): readonly PluginError[] {
    return this.#errors;
  }

  /** The plugins loaded, in load order. */
  get plugins(): readonly TracerPluginManifest[] {
    return this.#plugins;
  }

  /** Every tracer name available. */
  get tracerNames(): string[] {
    return [...this.#tracers.keys()];
  }

  /** Every tracer available, in load order, with its description and plugin. */
  get tracers(): TracerInfo[] {
    return [...this.#tracers.values()].map((e) => ({
      name: e.tracer.name,
      description: typeof e.tracer.description === 'string' ? e.tracer.description : '',
      plugin: this.#plugins.find((p) => p.name === e.plugin)!,
      path: e.path,
    }));
  }

  /** Loads a plugin by package name or path (see {@link loadTracerPlugin}). */
  async load(specifier: string, fromDir: string, conditions?: readonly string[]): Promise<TracerPluginManifest> {
    const prepare = (child: Container, manifest: TracerPluginManifest) => this.#prepare(child, manifest);
    const loaded = await loadTracerPlugin(specifier, fromDir, { parent: this.#container, conditions, prepare });
    const manifest = this.#add(loaded);
    this.#roots.push({ root: pluginRoot(loaded.path), guard: this.#guardOf(manifest.name) });
    return manifest;
  }

  /**
   * Whose plugin code an exception (or a call, `new Error()`) comes from: the tracer whose
   * `start`/`stop`/`report` began the async work running now, else the plugin a guarded handler of
   * which runs now, else the loaded plugin with a frame in the stack. Undefined: int3's own code.
   */
  attribute(error: unknown): PluginOwner | undefined {
    const owner = this.#async.getStore();
    if (owner) return owner;
    if (this.site.guard) return { guard: this.site.guard, tracer: this.site.tracer };
    const stack = error instanceof Error ? (error.stack ?? '') : '';
    const found = this.#roots.find((r) => stackHasFrameIn(stack, r.root));
    return found ? { guard: found.guard, tracer: found.guard.soleTracer } : undefined;
  }

  /**
   * Records an exception that escaped plugin code outside the host's calls — from a timer, a promise
   * or a subscription — as that tracer's (or plugin's) failure, or, when no plugin can be named, as one
   * naming every loaded plugin. Returns whether it was a plugin's.
   */
  failAsync(error: unknown, what = 'its timer, promise or subscription threw'): boolean {
    const owner = this.attribute(error);
    if (owner) {
      owner.guard.fail(owner.tracer, what, error, PluginErrorCode.ASYNC_FAILED);
      return true;
    }
    return false;
  }

  /** True once a plugin (not a built-in) is loaded: only then is there untrusted code to watch. */
  get hasPlugins(): boolean {
    return this.#roots.length > 0;
  }

  /**
   * Runs one slice of the machine's run under the watchdog (when plugins are loaded and
   * {@link watchdogMs} is set): a plugin handler that never returns is terminated, recorded as its
   * tracer's failure (`PLUGIN_TIMED_OUT`), and the PluginError thrown — the machine was stopped in the
   * middle of that handler and must not run again.
   */
  contained<T>(body: () => T): T {
    if (this.watchdogMs <= 0 || !this.hasPlugins) return body();
    try {
      return callWithTimeout(body, this.watchdogMs);
    } catch (error) {
      if (!(error instanceof CallTimeout)) throw error;
      throw this.#timedOut(error);
    }
  }

  #timedOut(error: CallTimeout): PluginError {
    const { guard, tracer, what } = this.site;
    this.site.guard = undefined;
    const limit = `${this.watchdogMs / 1000} s`;
    if (guard === undefined) {
      return new PluginError(
        PluginErrorCode.TIMED_OUT,
        this.#roots.map((r) => r.guard.plugin).join("', '"),
        `the machine ran ${limit} without finishing a slice; it was stopped there`,
        { cause: error },
      );
    }
    const before = this.#errors.length;
    guard.fail(
      tracer,
      `${what ?? 'its code'} did not return within ${limit}; the run was stopped there`,
      error,
      PluginErrorCode.TIMED_OUT,
    );
    return this.#errors.length > before
      ? this.#errors[this.#errors.length - 1]
      : (guard.failure(tracer) as PluginError);
  }

  /** Installs a plugin object already in hand (the built-in tracers). */
  async install(plugin: TracerPlugin): Promise<TracerPluginManifest> {
    return this.#add(
      await installTracerPlugin(plugin, this.#container, '<builtin>', (child, manifest) =>
        this.#prepare(child, manifest),
      ),
    );
  }

  /** Starts a tracer with arguments; on a throw it is stopped again and a PluginError raised. */
  start(name: string, args: readonly string[] = []): void {
    const entry = this.#entry(name);
    if (entry.running) return;
    const ctx = Object.freeze({ ...this.context, kprobes: entry.guard.kprobes, args: Object.freeze([...args]) });
    try {
      this.#call(entry, 'start', () => entry.tracer.start(ctx));
      entry.running = true;
    } catch (e) {
      try {
        this.#call(entry, 'stop', () => entry.tracer.stop());
      } catch {
        // The start failure is the one worth reporting.
      }
      throw this.#failed(entry, `start(${args.join(' ')}) threw`, e);
    }
  }

  /** True once the tracer failed (a handler, `start`, `stop` or `report` threw, or its plugin failed). */
  hasFailed(name: string): boolean {
    const entry = this.#entry(name);
    return entry.guard.hasFailed(name);
  }

  /** Stops one tracer, or every running one. */
  stop(name?: string): void {
    const entries = name === undefined ? [...this.#tracers.values()] : [this.#entry(name)];
    // Every tracer is stopped even when one fails (its probes must not stay registered); the first
    // failure is reported after.
    let first: Error | undefined;
    for (const entry of entries) {
      if (!entry.running) continue;
      entry.running = false;
      try {
        this.#call(entry, 'stop', () => entry.tracer.stop());
      } catch (e) {
        first ??= this.#failed(entry, 'stop() threw', e);
      }
    }
    if (first) throw first;
  }

  /** A tracer's report. */
  report(name: string): TracerReport {
    const entry = this.#entry(name);
    let r: TracerReport;
    try {
      r = this.#call(entry, 'report', () => entry.tracer.report());
    } catch (e) {
      throw this.#failed(entry, 'report() threw', e);
    }
    if (typeof r?.text !== 'string') {
      const e = new TypeError(`report() returned ${typeof r}, not { format, text }`);
      throw this.#failed(entry, 'report() failed', e);
    }
    return r;
  }

  /**
   * What a tracer that prints as it runs printed since the last drain ({@link Tracer.drain}); empty for
   * a tracer that only reports. A throw, or a result that is not `{ stdout, stderr }`, fails it.
   */
  drain(name: string): TracerOutput {
    const entry = this.#entry(name);
    const tracer = entry.tracer;
    if (tracer.drain === undefined) return NOTHING_DRAINED;
    let out: TracerOutput;
    try {
      out = this.#call(entry, 'drain', () => (tracer.drain as () => TracerOutput)());
    } catch (e) {
      throw this.#failed(entry, 'drain() threw', e);
    }
    if (typeof out?.stdout !== 'string' || typeof out.stderr !== 'string') {
      throw this.#failed(entry, 'drain() failed', new TypeError('drain() returned no { stdout, stderr }'));
    }
    return out;
  }

  /**
   * Runs one call into a tracer with its name as the registering owner, the call site set, the async
   * work it starts marked as its own, and — for a loaded plugin — under the watchdog.
   */
  #call<T>(entry: Entry, call: TracerCall, body: () => T): T {
    const { guard } = entry;
    const site = this.site;
    const before = guard.current;
    const tracer = entry.tracer.name;
    guard.current = tracer;
    site.guard = guard;
    site.tracer = tracer;
    site.what = `${call}()`;
    const watched = this.watchdogMs > 0 && entry.path !== '<builtin>';
    try {
      return this.#async.run({ guard, tracer }, () => (watched ? callWithTimeout(body, this.watchdogMs) : body()));
    } catch (error) {
      if (error instanceof CallTimeout) {
        throw new Error(`it did not return within ${this.watchdogMs / 1000} s`, { cause: error });
      }
      throw error;
    } finally {
      guard.current = before;
      site.guard = undefined;
    }
  }

  #add(loaded: LoadedTracerPlugin): TracerPluginManifest {
    for (const name of loaded.tracers.keys()) {
      const other = this.#tracers.get(name);
      if (other) {
        throw new PluginError(
          PluginErrorCode.CONFLICT,
          loaded.manifest.name,
          `tracer '${name}' is already provided by plugin '${other.plugin}'`,
        );
      }
    }
    const guard = this.#guardOf(loaded.manifest.name);
    guard.soleTracer = loaded.tracers.size === 1 ? [...loaded.tracers.keys()][0] : undefined;
    for (const [name, tracer] of loaded.tracers) {
      this.#tracers.set(name, { tracer, plugin: loaded.manifest.name, path: loaded.path, guard, running: false });
    }
    this.#plugins.push(loaded.manifest);
    return loaded.manifest;
  }

  /** The plugin's own kprobes facade and context, bound in its child container over the shared ones. */
  #prepare(child: Container, manifest: TracerPluginManifest): void {
    const guard = this.#guardOf(manifest.name);
    child.bind(TracerTokens.Kprobes).toConstantValue(guard.kprobes);
    child.bind(TracerTokens.Context).toConstantValue(Object.freeze({ ...this.context, kprobes: guard.kprobes }));
  }

  #guardOf(plugin: string): PluginGuard {
    let guard = this.#guards.get(plugin);
    if (guard === undefined) {
      guard = new PluginGuard(
        plugin,
        this.context.kprobes,
        (e) => {
          this.#errors.push(e);
          this.#errorSubject.next(e);
        },
        this.site,
      );
      this.#guards.set(plugin, guard);
    }
    return guard;
  }

  #entry(name: string): Entry {
    const entry = this.#tracers.get(name);
    if (!entry) {
      const known = this.tracerNames.join(', ') || 'none';
      throw new PluginError(
        PluginErrorCode.NO_TRACER,
        name,
        `no loaded plugin provides tracer '${name}' (loaded: ${known})`,
      );
    }
    return entry;
  }

  /** Records a failure of a tracer's own call (first per tracer) and returns it to throw. */
  #failed(entry: Entry, what: string, cause: unknown): PluginError {
    const name = entry.tracer.name;
    const before = this.#errors.length;
    entry.guard.fail(name, what, cause, PluginErrorCode.TRACER_FAILED);
    return this.#errors.length > before
      ? this.#errors[this.#errors.length - 1]
      : new PluginError(
          PluginErrorCode.TRACER_FAILED,
          entry.plugin,
          `tracer '${name}': ${what}: ${describeThrown(cause)}`,
          {
            cause,
            tracer: name,
          },
        );
  }
}
