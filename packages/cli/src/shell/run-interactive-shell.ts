import { createInterface } from 'node:readline';
import type { Interrupt } from '../runtime/interrupt.js';
import { completeShellLine, type ListableFs } from './complete-shell-line.js';
import { HISTORY_SIZE, type ShellHistory } from './shell-history.js';
import type { TracefsShell } from './tracefs-shell.js';

/** The interactive prompt. */
export const PROMPT = 'tracefs# ';

/** What the interactive shell reads, writes and keeps. */
export interface InteractiveShellOptions {
  readonly shell: Pick<TracefsShell, 'execute'>;
  /** The tracefs Tab completes paths in. */
  readonly fs: ListableFs;
  /** Ctrl-C while a command runs asks it to stop at its next slice. */
  readonly interrupt: Interrupt;
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
  /** Where history is loaded from and saved to (none: in memory only). */
  readonly history?: ShellHistory | undefined;
}

/**
 * The shell on a terminal: node:readline with a prompt, history (up/down, loaded from and saved to
 * {@link InteractiveShellOptions.history} after every line, at most {@link HISTORY_SIZE} lines) and
 * Tab completion; Ctrl-C stops the command running (at its next slice) or drops the line being
 * typed; Ctrl-D (or `exit`) leaves. Lines typed while a command runs wait their turn.
 *
 * @see bash(1) HISTFILE, HISTFILESIZE
 */
export function runInteractiveShell(options: InteractiveShellOptions): Promise<void> {
  const { shell, interrupt, output, history } = options;
  const rl = createInterface({
    input: options.input,
    output,
    prompt: PROMPT,
    terminal: true,
    history: history?.load() ?? [],
    historySize: HISTORY_SIZE,
    removeHistoryDuplicates: true,
    completer: (line: string) => completeShellLine(line, options.fs),
  });
  if (history !== undefined) rl.on('history', (lines: string[]) => history.save(lines));
  let busy = false;
  let queue = Promise.resolve();
  return new Promise((resolve) => {
    rl.on('line', (line) => {
      if (line.trim() === 'exit') {
        rl.close();
        return;
      }
      queue = queue.then(async () => {
        busy = true;
        await shell.execute(line);
        busy = false;
        rl.prompt();
      });
    });
    rl.on('SIGINT', () => {
      output.write('^C\n');
      if (busy) {
        interrupt.request();
        return;
      }
      rl.write(null, { ctrl: true, name: 'u' });
      rl.prompt();
    });
    rl.on('close', () => {
      output.write('\n');
      void queue.then(resolve);
    });
    rl.prompt();
  });
}
