import { createHash, type Hash } from 'node:crypto';
import { AppendOnlyHistory, type HistoryState } from '../snapshot/append-only-history.js';

/** One write to `/dev/console`. */
export interface ConsoleWrite {
  readonly at: number;
  readonly cpu: number;
  readonly pid: number;
  readonly text: string;
}

/** A saved {@link ConsoleLog}. */
export interface ConsoleLogState {
  readonly writes: HistoryState<ConsoleWrite>;
  /** The running digest after the last write (a copy, never updated). */
  readonly digest: Hash;
}

/**
 * `/dev/console`'s writes, in order, with a running SHA-256 over all of them: the state hash takes
 * the digest (constant time however long the console is) instead of walking every write.
 */
export class ConsoleLog {
  /** The writes, in order. */
  readonly writes: ConsoleWrite[] = [];
  private readonly history = new AppendOnlyHistory(this.writes);
  private running: Hash = createHash('sha256');

  /** Appends one write. */
  push(write: ConsoleWrite): void {
    this.writes.push(write);
    this.running.update(`${write.at}:${write.cpu}:${write.pid}:${write.text}`);
  }

  /**
   * SHA-256 of every write so far, each as `at:cpu:pid:text` one after the other (no separator), in
   * order: the console's part of the state hash.
   */
  digest(): Buffer {
    return this.running.copy().digest();
  }

  save(): ConsoleLogState {
    return Object.freeze({ writes: this.history.save(), digest: this.running.copy() });
  }

  restore(s: ConsoleLogState): void {
    this.history.restore(s.writes);
    this.running = s.digest.copy();
  }
}
