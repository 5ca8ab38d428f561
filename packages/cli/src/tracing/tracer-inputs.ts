import { arrayOf, type EntrySchema, KernelError, type LogEntry, type Session, text } from '@int3/kernel';
import { PluginError, type TracerHost } from '@int3/tracer-plugins';

/**
 * The session input that starts a tracer (`--tracer`, or a `--plugin`'s tracers): `name`, its `args`,
 * and `plugin`, the `name@version` of the plugin that provides it. Its probes are registered inside
 * the input (their text pokes are its events) and the list of started tracers is in every later
 * checkpoint's hash, so a log whose tracers were edited diverges.
 */
export const TRACER_START = 'input:tracer-start';

/**
 * The session input that stops every running tracer after the run (their probes unregistered inside
 * it), before their reports are taken.
 */
export const TRACERS_STOP = 'input:tracers-stop';

/** The schema of {@link TRACER_START} (event-log.md §2). */
export const TRACER_START_SCHEMA: EntrySchema = {
  required: {
    name: text(128),
    args: arrayOf(text(4096), 0, 256, 'tracer arguments'),
    plugin: text(512),
  },
};

/** `name@version` of the plugin providing tracer `name` in `host`, undefined when none does. */
export function pluginOf(host: TracerHost, name: string): string | undefined {
  const info = host.tracers.find((t) => t.name === name);
  return info === undefined ? undefined : `${info.plugin.name}@${info.plugin.version}`;
}

/**
 * Starts tracers through a session's log: registers the {@link TRACER_START} handler, which starts the
 * tracer in `host` after checking that the plugin providing it is the recorded one, and — from the
 * first start on — adds the started tracers (plugin, name, arguments) to the state hash.
 */
export class TracerInputs {
  /** The tracers started, in order. */
  readonly started: string[] = [];
  private readonly described: string[] = [];

  constructor(
    private readonly session: Session,
    private readonly host: TracerHost,
  ) {
    session.handle(TRACER_START, (input) => this.carryOut(input), TRACER_START_SCHEMA);
    session.handle(TRACERS_STOP, () => this.stopAll(), { required: {} });
  }

  /** Journals the stop of every running tracer and stops them, when any was started. */
  stop(): void {
    if (this.started.length > 0) this.session.apply({ type: TRACERS_STOP });
  }

  private stopAll(): void {
    try {
      this.host.stop();
    } catch (error) {
      // Every tracer was stopped; each failure is on host.errors, reported after the output.
      if (!(error instanceof PluginError)) throw error;
    }
  }

  /** Journals the start of tracer `name` with `args` and starts it (what `host.start` throws, it throws). */
  start(name: string, args: readonly string[]): void {
    this.session.apply({ type: TRACER_START, name, args: [...args], plugin: pluginOf(this.host, name) ?? '' });
  }

  private carryOut(input: LogEntry): void {
    const name = input.name as string;
    const plugin = input.plugin as string;
    const loaded = pluginOf(this.host, name);
    if (loaded !== plugin) {
      throw new KernelError(
        'BAD_LOG',
        loaded === undefined
          ? `the run started tracer '${name}' of plugin ${plugin}: load that plugin with --plugin`
          : `the run started tracer '${name}' of plugin ${plugin}, not ${loaded}: load the plugin it was recorded with`,
      );
    }
    this.host.start(name, input.args as string[]);
    if (this.described.length === 0) this.session.hashAlso('tracers', () => this.described.join('\n'));
    this.described.push(`${plugin} ${name} ${JSON.stringify(input.args)}`);
    this.started.push(name);
  }
}
