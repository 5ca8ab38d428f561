/** `--color=WHEN`, as GNU `ls --color` and `grep --color` take it. */
export type ColorWhen = 'auto' | 'always' | 'never';

/** The accepted values of `--color`, in the order help lists them. */
export const COLOR_WHEN: readonly ColorWhen[] = ['auto', 'always', 'never'];

/** The environment variables that decide colours under `--color=auto`. */
export interface ColorEnv {
  readonly NO_COLOR?: string;
  readonly FORCE_COLOR?: string;
  readonly TERM?: string;
}

/**
 * Whether a stream takes colours. `always` and `never` are final; under `auto`, in this order: a
 * non-empty `FORCE_COLOR` forces them on (`0` or `false` off, as Node reads it), a non-empty
 * `NO_COLOR` turns them off, `TERM=dumb` turns them off, and otherwise a terminal takes them and a
 * pipe or file does not.
 *
 * @see https://no-color.org, https://force-color.org, Node's tty.WriteStream.getColorDepth()
 * @example
 * colorEnabled('auto', true, { TERM: 'dumb' }); // false
 */
export function colorEnabled(when: ColorWhen, isTty: boolean, env: ColorEnv): boolean {
  if (when !== 'auto') return when === 'always';
  const force = env.FORCE_COLOR ?? '';
  if (force !== '') return force !== '0' && force !== 'false';
  if ((env.NO_COLOR ?? '') !== '') return false;
  if (env.TERM === 'dumb') return false;
  return isTty;
}

/** Reads `--color`'s value; undefined for a value it does not take. */
export function parseColorWhen(text: string): ColorWhen | undefined {
  return (COLOR_WHEN as readonly string[]).includes(text) ? (text as ColorWhen) : undefined;
}

/**
 * The `--color`/`--no-color` of a raw argv (the last one wins), for the error line `bin.ts` prints
 * when parsing itself failed; `auto` when there is none or its value is not one `--color` takes.
 */
export function colorWhenOfArgv(argv: readonly string[]): ColorWhen {
  let when: ColorWhen = 'auto';
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i];
    if (word === '--') break;
    if (word === '--no-color') when = 'never';
    else if (word.startsWith('--color=')) when = parseColorWhen(word.slice('--color='.length)) ?? when;
    else if (word === '--color') when = parseColorWhen(argv[++i] ?? '') ?? when;
  }
  return when;
}
