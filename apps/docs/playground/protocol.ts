/** What the page asks the playground worker. */
export type PlaygroundRequest =
  /** Boots a new machine on `cpus` CPUs (the previous one is dropped). */
  | { readonly type: 'boot'; readonly id: number; readonly cpus: number }
  /** Runs one `int3 tracefs` line; a `run` stops after `budget` guest instructions. */
  | { readonly type: 'exec'; readonly id: number; readonly line: string; readonly budget: number }
  /** The machine's event log so far, as `int3 record -o` writes it. */
  | { readonly type: 'log'; readonly id: number };

/** One piece of output, on the shell's stdout or stderr. */
export interface OutputChunk {
  readonly stream: 'out' | 'err';
  readonly text: string;
}

/** What the worker answers: one reply per request, in order. */
export type PlaygroundReply =
  | { readonly type: 'booted'; readonly id: number; readonly ms: number }
  | {
      readonly type: 'done';
      readonly id: number;
      readonly output: readonly OutputChunk[];
      /** True when the command failed (its message is on `err`). */
      readonly failed: boolean;
      /** True when the instruction budget stopped a run. */
      readonly budgetExceeded: boolean;
      /** Guest instructions retired by all CPUs so far. */
      readonly instructions: number;
    }
  | { readonly type: 'log'; readonly id: number; readonly text: string }
  | { readonly type: 'error'; readonly id: number; readonly message: string };
