/** A saved {@link AppendOnlyHistory}: full chunks shared with every other save, and the rest. */
export interface HistoryState<T> {
  readonly chunks: readonly (readonly T[])[];
  readonly tail: readonly T[];
}

/** Items per frozen chunk. */
const CHUNK = 1024;

/**
 * Saves and restores an array that only grows between restores (the console's writes), sharing what
 * saves have in common: each full chunk of {@link CHUNK} items is frozen once and held by every later
 * save, so a save costs O(n / CHUNK + CHUNK) time and memory instead of a copy of all n items. A
 * machine keeping tens of snapshots of a chatty workload then holds its output about once.
 */
export class AppendOnlyHistory<T> {
  private chunks: (readonly T[])[] = [];

  /** @param items the live array; between restores, only appended to */
  constructor(private readonly items: T[]) {}

  save(): HistoryState<T> {
    const items = this.items;
    for (let k = this.chunks.length; (k + 1) * CHUNK <= items.length; k++) {
      this.chunks.push(Object.freeze(items.slice(k * CHUNK, (k + 1) * CHUNK)));
    }
    return Object.freeze({
      chunks: Object.freeze([...this.chunks]),
      tail: Object.freeze(items.slice(this.chunks.length * CHUNK)),
    });
  }

  /** Makes the live array hold exactly the items of `state`. */
  restore(state: HistoryState<T>): void {
    const items = this.items;
    items.length = 0;
    for (const chunk of state.chunks) for (const item of chunk) items.push(item);
    for (const item of state.tail) items.push(item);
    this.chunks = [...state.chunks];
  }
}
