import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';

/** Most lines the history file keeps (the oldest go first), as bash's `HISTFILESIZE`. */
export const HISTORY_SIZE = 1000;

/** Longest line kept; a longer one (a pasted page) is not saved. */
const MAX_LINE = 4096;

/**
 * Where the tracefs shell keeps its history: `$XDG_STATE_HOME/int3/tracefs_history`, else
 * `~/.local/state/int3/tracefs_history`; undefined when neither directory is known (no `HOME`).
 *
 * @see https://specifications.freedesktop.org/basedir-spec/latest/ ($XDG_STATE_HOME: "history, … ")
 * @example
 * historyPath({ HOME: '/home/ann' }); // '/home/ann/.local/state/int3/tracefs_history'
 */
export function historyPath(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const state = env.XDG_STATE_HOME;
  if (state !== undefined && isAbsolute(state)) return join(state, 'int3', 'tracefs_history');
  const home = env.HOME;
  if (home === undefined || !isAbsolute(home)) return undefined;
  return join(home, '.local', 'state', 'int3', 'tracefs_history');
}

/**
 * The tracefs shell's history across sessions: a file of one command per line, oldest first, capped
 * at {@link HISTORY_SIZE} lines. Reading a missing or unreadable file gives an empty history; a
 * failed write is ignored (the shell works without it).
 */
export class ShellHistory {
  constructor(private readonly path: string) {}

  /** The saved commands, newest first (node:readline's `history` order). */
  load(): string[] {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch {
      return [];
    }
    return text
      .split('\n')
      .filter((l) => l.trim() !== '')
      .slice(-HISTORY_SIZE)
      .reverse();
  }

  /** Saves `history` (newest first, as readline keeps it), its newest {@link HISTORY_SIZE} lines. */
  save(history: readonly string[]): void {
    const lines = history
      .filter((l) => l.trim() !== '' && l.length <= MAX_LINE)
      .slice(0, HISTORY_SIZE)
      .reverse();
    try {
      mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      writeFileSync(this.path, lines.length === 0 ? '' : `${lines.join('\n')}\n`, { mode: 0o600 });
    } catch {
      // No history is better than no shell.
    }
  }
}
