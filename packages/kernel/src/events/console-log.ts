import { createHash, type Hash } from 'node:crypto';

/** One write to `/dev/console`. */
export interface ConsoleWrite {
  readonly at: number;
  readonly cpu: number;
  readonly pid: number;
  readonly text: string;
}

/** Characters of console text a machine keeps by default (1 Mi); older writes are dropped. */
export const DEFAULT_CONSOLE_CHARS = 1 << 20;

/** Writes per frozen chunk, and characters of text after which a chunk is frozen earlier. */
const CHUNK_WRITES = 1024;
const CHUNK_CHARS = 64 * 1024;

/** A frozen run of writes, shared by every save that holds it. */
interface Chunk {
  readonly writes: readonly ConsoleWrite[];
  readonly bytes: number;
}

/** A saved {@link ConsoleLog}. */
export interface ConsoleLogState {
  readonly chunks: readonly Chunk[];
  readonly tail: readonly ConsoleWrite[];
  readonly tailBytes: number;
  readonly dropped: number;
  /** The running digest after the last write (a copy, never updated). */
  readonly digest: Hash;
}

/**
 * `/dev/console`'s writes: the most recent ones kept (about `capacity` characters of text, oldest dropped
 * first, as a ring buffer drops its oldest records), with a running SHA-256 over every write ever
 * made — the console's part of the state hash, so dropping changes no hash and a replay compares the
 * whole console however long the run. Full chunks of writes are frozen and shared by every save,
 * so snapshots hold the kept writes about once.
 *
 * @see kernel/printk/printk_ringbuffer.c (the oldest records make room), not its algorithm
 */
/**
 * The console as a machine's users read it: the writes kept, how many were made since boot, those
 * after the first `n`, and the digest of all of them.
 */
export type ConsoleView = Pick<ConsoleLog, 'writes' | 'total' | 'since' | 'digest'>;

export class ConsoleLog {
  private chunks: Chunk[] = [];
  private tail: ConsoleWrite[] = [];
  private tailBytes = 0;
  private keptBytes = 0;
  /** Writes dropped from the front since the machine booted. */
  private dropped = 0;
  private running: Hash = createHash('sha256');

  constructor(private readonly capacity = DEFAULT_CONSOLE_CHARS) {}

  /** Appends one write, dropping the oldest chunks beyond the capacity. */
  push(write: ConsoleWrite): void {
    this.running.update(`${write.at}:${write.cpu}:${write.pid}:${write.text}`);
    this.tail.push(write);
    this.tailBytes += write.text.length;
    this.keptBytes += write.text.length;
    if (this.tail.length >= CHUNK_WRITES || this.tailBytes >= CHUNK_CHARS) {
      this.chunks.push(Object.freeze({ writes: Object.freeze(this.tail), bytes: this.tailBytes }));
      this.tail = [];
      this.tailBytes = 0;
    }
    while (this.chunks.length > 0 && this.keptBytes - this.chunks[0].bytes >= this.capacity) {
      const gone = this.chunks.shift()!;
      this.keptBytes -= gone.bytes;
      this.dropped += gone.writes.length;
    }
  }

  /** The writes kept, oldest first. */
  get writes(): readonly ConsoleWrite[] {
    return [...this.chunks.flatMap((c) => c.writes), ...this.tail];
  }

  /** Writes made since the machine booted, dropped ones included. */
  get total(): number {
    return this.dropped + this.kept;
  }

  /** Characters of text of the writes kept (less than the capacity plus one chunk). */
  get charsKept(): number {
    return this.keptBytes;
  }

  /** The kept writes made after the first `total` writes (all kept ones when they reach back that far). */
  since(total: number): readonly ConsoleWrite[] {
    return this.writes.slice(Math.max(0, total - this.dropped));
  }

  /**
   * SHA-256 of every write so far, each as `at:cpu:pid:text` one after the other (no separator), in
   * order, dropped ones included: the console's part of the state hash.
   */
  digest(): Buffer {
    return this.running.copy().digest();
  }

  /** @internal Snapshot plumbing: the machine snapshot saves and restores it. */
  save(): ConsoleLogState {
    return Object.freeze({
      chunks: Object.freeze([...this.chunks]),
      tail: Object.freeze([...this.tail]),
      tailBytes: this.tailBytes,
      dropped: this.dropped,
      digest: this.running.copy(),
    });
  }

  /** @internal Snapshot plumbing: the machine snapshot saves and restores it. */
  restore(s: ConsoleLogState): void {
    this.chunks = [...s.chunks];
    this.tail = [...s.tail];
    this.tailBytes = s.tailBytes;
    this.keptBytes = s.tailBytes + s.chunks.reduce((n, c) => n + c.bytes, 0);
    this.dropped = s.dropped;
    this.running = s.digest.copy();
  }

  private get kept(): number {
    return this.tail.length + this.chunks.reduce((n, c) => n + c.writes.length, 0);
  }
}
