import { type ColorEnv, type ColorWhen, colorEnabled } from './color-when.js';
import { escapeControls } from './escape-controls.js';

/** SGR escape sequences the CLI paints with. */
export const Style = Object.freeze({
  bold: '1',
  dim: '2',
  red: '31',
  green: '32',
  yellow: '33',
  cyan: '36',
  boldRed: '1;31',
  boldGreen: '1;32',
});

/** One of {@link Style}'s values. */
export type StyleCode = (typeof Style)[keyof typeof Style];

/** What decides how the CLI talks to the terminal. */
export interface TerminalOptions {
  readonly stdoutIsTty: boolean;
  readonly stderrIsTty: boolean;
  /** `--color=WHEN`; `true` stands for `auto` and `false` for `never` (`--no-color`). */
  readonly color: ColorWhen | boolean;
  /** `NO_COLOR`, `FORCE_COLOR` and `TERM`, read under `--color=auto`. */
  readonly env?: ColorEnv;
  /** `--quiet`: no progress, no notes. */
  readonly quiet: boolean;
  readonly writeErr: (text: string) => void;
  /** Milliseconds since some origin, for throttling progress (default `Date.now`). */
  readonly now?: () => number;
}

/** Least time between two progress redraws, in milliseconds. */
const PROGRESS_EVERY_MS = 100;

/**
 * The CLI's manners on a terminal: colours as {@link colorEnabled} decides for each stream
 * (`--color=auto|always|never`, `FORCE_COLOR`, `NO_COLOR`, `TERM=dumb`); progress on stderr only on a
 * TTY, throttled and erased before anything else is written; notes on stderr unless `--quiet`.
 * Without `--color=always` or `FORCE_COLOR`, nothing here writes an escape code to a pipe.
 *
 * @see https://no-color.org
 * @example
 * const term = new Terminal({ stdoutIsTty: true, stderrIsTty: true, color: true, quiet: false, writeErr });
 * term.progress('1.2 M insns');
 * term.note('interrupted');
 */
export class Terminal {
  /** Colours on stdout. */
  readonly colorOut: boolean;
  /** Colours on stderr. */
  readonly colorErr: boolean;
  readonly #o: TerminalOptions;
  #lastProgress = Number.NEGATIVE_INFINITY;
  #progressShown = false;

  constructor(options: TerminalOptions) {
    this.#o = options;
    const when = options.color === true ? 'auto' : options.color === false ? 'never' : options.color;
    this.colorOut = colorEnabled(when, options.stdoutIsTty, options.env ?? {});
    this.colorErr = colorEnabled(when, options.stderrIsTty, options.env ?? {});
  }

  /** True for `--quiet`. */
  get quiet(): boolean {
    return this.#o.quiet;
  }

  /** `text` in `style` when stdout takes colours, else as is. */
  paintOut(style: StyleCode, text: string): string {
    return this.colorOut ? paint(style, text) : text;
  }

  /** `text` in `style` when stderr takes colours, else as is. */
  paintErr(style: StyleCode, text: string): string {
    return this.colorErr ? paint(style, text) : text;
  }

  /** A note on stderr (`int3: TEXT`, its control characters escaped), dropped by `--quiet`. */
  note(text: string): void {
    if (this.#o.quiet) return;
    this.endProgress();
    this.#o.writeErr(`${this.paintErr(Style.dim, 'int3:')} ${escapeControls(text)}\n`);
  }

  /** Redraws the progress line on a TTY, at most every 100 ms; `force` skips the throttle. */
  progress(text: string, force = false): void {
    if (this.#o.quiet || !this.#o.stderrIsTty) return;
    const now = (this.#o.now ?? Date.now)();
    if (!force && now - this.#lastProgress < PROGRESS_EVERY_MS) return;
    this.#lastProgress = now;
    this.#o.writeErr(`\r\x1b[K${text}`);
    this.#progressShown = true;
  }

  /** Erases the progress line, if one is shown. */
  endProgress(): void {
    if (!this.#progressShown) return;
    this.#progressShown = false;
    this.#o.writeErr('\r\x1b[K');
  }
}

/** Wraps `text` in an SGR sequence and a reset. */
export function paint(style: StyleCode, text: string): string {
  return `\x1b[${style}m${text}\x1b[0m`;
}
