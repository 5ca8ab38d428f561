/** What the page asks the playground worker. */
export type PlaygroundRequest =
  /** Boots a new machine on `cpus` CPUs (the previous one is dropped). */
  | { readonly type: 'boot'; readonly id: number; readonly cpus: number }
  /** Runs one `int3 tracefs` line; a `run` stops after `budget` guest instructions. */
  | { readonly type: 'exec'; readonly id: number; readonly line: string; readonly budget: number }
  /** The machine's event log so far, as `int3 record -o` writes it. */
  | { readonly type: 'log'; readonly id: number }
  /** The step-by-step view of the first probe hit since boot. */
  | { readonly type: 'hit'; readonly id: number }
  /**
   * `int3 replay NAME [-e DEF]… [--filter E=X]… [--trigger E=C]…` on a log's bytes, on a machine of its
   * own (the booted one stays); it stops after `budget` guest instructions.
   */
  | {
      readonly type: 'replay';
      readonly id: number;
      readonly log: Uint8Array;
      readonly name: string;
      readonly definitions: readonly string[];
      readonly filters: readonly string[];
      readonly triggers: readonly string[];
      readonly budget: number;
    };

/** One piece of output, on the shell's stdout or stderr. */
export interface OutputChunk {
  readonly stream: 'out' | 'err';
  readonly text: string;
}

/** One instruction of a disassembly, as `int3 disasm` prints it. */
export interface DisassemblyRow {
  /** In hex, without `0x`. */
  readonly address: string;
  /** The bytes, the instruction (AT&T) and a probe point's mark. */
  readonly text: string;
  /** The probe's instruction (in the function) or the copy's (in the slot). */
  readonly marked: boolean;
}

/** The step-by-step view of one hit. */
export interface HitView {
  readonly heading: string;
  /** The lines `int3 demo` prints for a hit, each with the disassembly rows it names (addresses). */
  readonly steps: readonly { readonly line: string; readonly links: readonly string[] }[];
  readonly function: { readonly name: string; readonly rows: readonly DisassemblyRow[] };
  /** The instruction slot with the probe's copy (none for a probe without one). */
  readonly slot?: { readonly address: string; readonly rows: readonly DisassemblyRow[] };
}

/** What the worker answers: one reply per request, in order. */
export type PlaygroundReply =
  | {
      readonly type: 'booted';
      readonly id: number;
      readonly ms: number;
      /** The seed modules `insmod` takes, by path (`modules/kprobes/kprobe_example.ko`). */
      readonly modules: readonly string[];
    }
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
      /** Of those, the instructions retired in code the block compiler made (0 when it is off). */
      readonly compiled: number;
    }
  | { readonly type: 'log'; readonly id: number; readonly text: string }
  | { readonly type: 'hit'; readonly id: number; readonly view?: HitView }
  | {
      readonly type: 'replayed';
      readonly id: number;
      readonly output: readonly OutputChunk[];
      /** The exit status `int3 replay` has. */
      readonly status: number;
      readonly budgetExceeded: boolean;
      readonly instructions: number;
    }
  | { readonly type: 'error'; readonly id: number; readonly message: string };
