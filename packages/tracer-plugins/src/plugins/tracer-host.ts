import { Container } from 'inversify';
import { type Observable, Subject } from 'rxjs';
import type { TraceFs } from '../tracefs/trace-fs.js';
import { installTracerPlugin, type LoadedTracerPlugin, loadTracerPlugin } from './load-tracer-plugin.js';
import { describeThrown, PluginError, PluginErrorCode } from './plugin-error.js';
import { PluginGuard } from './plugin-guard.js';
import type { Tracer, TracerReport } from './tracer.js';
import type { TracerContext } from './tracer-context.js';
import type { TracerPlugin, TracerPluginManifest } from './tracer-plugin.js';
import { TracerTokens } from './tracer-tokens.js';

interface Entry {
  readonly tracer: Tracer;
  readonly plugin: string;
  readonly guard: PluginGuard;
  running: boolean;
}

/**
 * Loads tracer plugins for one machine and runs their tracers, turning every failure of a plugin
 * (load, `start`, `stop`, `report`) into a {@link PluginError} naming it. A tracer whose `start`
 * throws is stopped again, so a half-registered tool leaves no probe behind. At run time each plugin
 * works through its own {@link PluginGuard}ed kprobes: a probe handler that throws while the machine
 * runs is contained, its plugin's probes are disabled, and the error is reported once on
 * {@link TracerHost.errors} and {@link TracerHost.errors$}; the machine and other tracers go on.
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
  /** Run-time plugin failures (`PLUGIN_HANDLER_FAILED`), each reported once, as they happen. */
  readonly errors$: Observable<PluginError> = this.#errorSubject.asObservable();

  constructor(traceFs: TraceFs) {
    const machine = traceFs.m;
    this.context = Object.freeze({
      machine,
      kprobes: traceFs.kprobes,
      traceFs,
      buffer: traceFs.buffer,
      clock: Object.freeze({ now: (cpu: number) => machine.clock(cpu) }),
      args: Object.freeze([]),
    });
    const c = this.#container;
    c.bind(TracerTokens.Machine).toConstantValue(machine);
    c.bind(TracerTokens.Kprobes).toConstantValue(traceFs.kprobes);
    c.bind(TracerTokens.TraceFs).toConstantValue(traceFs);
    c.bind(TracerTokens.TraceBuffer).toConstantValue(traceFs.buffer);
    c.bind(TracerTokens.Clock).toConstantValue(this.context.clock);
    c.bind(TracerTokens.Context).toConstantValue(this.context);
  }

  /** Run-time plugin failures so far, in order (one per failed plugin). */
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

  /** Loads a plugin by package name or path (see {@link loadTracerPlugin}). */
  async load(specifier: string, fromDir: string, conditions?: readonly string[]): Promise<TracerPluginManifest> {
    const prepare = (child: Container, manifest: TracerPluginManifest) => this.#prepare(child, manifest);
    return this.#add(await loadTracerPlugin(specifier, fromDir, { parent: this.#container, conditions, prepare }));
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
    try {
      const kprobes = entry.guard.kprobes;
      entry.tracer.start(Object.freeze({ ...this.context, kprobes, args: Object.freeze([...args]) }));
      entry.running = true;
    } catch (e) {
      try {
        entry.tracer.stop();
      } catch {
        // The start failure is the one worth reporting.
      }
      throw this.#failed(entry, `start(${args.join(' ')}) threw: ${describeThrown(e)}`, e);
    }
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
        entry.tracer.stop();
      } catch (e) {
        first ??= this.#failed(entry, `stop() threw: ${describeThrown(e)}`, e);
      }
    }
    if (first) throw first;
  }

  /** A tracer's report. */
  report(name: string): TracerReport {
    const entry = this.#entry(name);
    try {
      const r = entry.tracer.report();
      if (typeof r?.text !== 'string') throw new TypeError('report() must return { format, text }');
      return r;
    } catch (e) {
      throw this.#failed(entry, `report() threw: ${describeThrown(e)}`, e);
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
    for (const [name, tracer] of loaded.tracers) {
      this.#tracers.set(name, { tracer, plugin: loaded.manifest.name, guard, running: false });
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
      guard = new PluginGuard(plugin, this.context.kprobes, (e) => {
        this.#errors.push(e);
        this.#errorSubject.next(e);
      });
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

  #failed(entry: Entry, message: string, cause: unknown): PluginError {
    return new PluginError(PluginErrorCode.TRACER_FAILED, entry.plugin, `tracer '${entry.tracer.name}': ${message}`, {
      cause,
    });
  }
}
