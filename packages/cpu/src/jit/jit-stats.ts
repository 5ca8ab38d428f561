/** Where the compiler's time goes (a BlockCompiler's `stats`, shown as a CPU's `jit.stats`). */
export interface JitStats {
  /** Regions compiled. */
  compiled: number;
  /** Basic blocks in the regions compiled. */
  blocks: number;
  /** Of those, regions whose source was new (the others reused a factory: same code, same address). */
  generated: number;
  /** Of the regions compiled, those compiled to WebAssembly (BlockCompilerOptions.wasm). */
  wasm: number;
  /** Heads found not compilable (the first instruction is one the compiler does not take). */
  refused: number;
  /**
   * Heads reached where a live region has a block it cannot start at: given an inner entry there
   * (the interpreter runs to the region's next entry) rather than a region of their own.
   */
  inner: number;
  /** Regions compiled again with their inner entries made entries (reached often, see BlockCompilerOptions.innerThreshold). */
  widened: number;
  /** Host milliseconds spent generating and compiling regions. */
  compileMs: number;
  /** Regions run (entered from the run loop, or chained into from another region). */
  entries: number;
  /** Of those, regions chained into straight from another region's static exit (no run-loop lookup). */
  chained: number;
  /** Returns to the run loop from compiled code (the interpreter runs next, or the loop looks up a region). */
  exits: number;
  /** Gates reached in compiled code, in a region or between two (their host hook run there, without the run loop). */
  gates: number;
  /** int3s reached in a chain (their #BP offered to the host there, without the run loop: a probe's hit). */
  traps: number;
  /**
   * Of those, the single-steps the chain ran after one, where the host set TF to step the instruction
   * it moved RIP to (an unboosted probe's copy), without the run loop.
   */
  steps: number;
  /** Instructions retired inside compiled regions. */
  retired: number;
  /** Regions dropped because the cache was full. */
  evicted: number;
}
