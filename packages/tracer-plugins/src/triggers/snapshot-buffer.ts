import { TraceBuffer, type TraceBufferState } from '../ring-buffer/trace-buffer.js';

/** The text `snapshot` reads when its buffer is empty. @see kernel/trace/trace.c print_snapshot_help() */
export function snapshotHelp(allocated: boolean): string {
  return [
    '#',
    allocated ? '# * Snapshot is allocated *' : '# * Snapshot is freed *',
    '#',
    '# Snapshot commands:',
    '# echo 0 > snapshot : Clears and frees snapshot buffer',
    '# echo 1 > snapshot : Allocates snapshot buffer, if not already allocated.',
    '#                      Takes a snapshot of the main buffer.',
    '# echo 2 > snapshot : Clears snapshot buffer (but does not allocate or free)',
    "#                      (Doesn't have to be '2' works with any number that",
    "#                       is not a '0' or '1')",
    '',
  ].join('\n');
}

/** A {@link SnapshotBuffer} at a machine snapshot. */
export interface SnapshotBufferState {
  readonly buffer: TraceBuffer | undefined;
  readonly state: TraceBufferState | undefined;
  readonly armed: number;
}

/**
 * The trace array's snapshot ("max") buffer: allocated by `echo 1 > snapshot` or by a `snapshot`
 * trigger, a buffer the size of the main one whose records are exchanged with the main buffer's
 * when a snapshot is taken; `echo 0` frees it, any other number empties it.
 *
 * @see kernel/trace/trace.c tracing_snapshot_write(), tracing_snapshot_instance_cond(), tracing_arm_snapshot()
 * @example
 * const snap = new SnapshotBuffer(main);
 * snap.write(1); // allocate and take a snapshot
 * snap.buffer?.entries;
 */
export class SnapshotBuffer {
  #buffer: TraceBuffer | undefined;
  #armed = 0;

  constructor(private readonly main: TraceBuffer) {}

  /** The snapshot buffer, if allocated. */
  get buffer(): TraceBuffer | undefined {
    return this.#buffer;
  }

  /** Allocates the buffer (empty) at the main buffer's size, or brings it to that size. */
  allocate(): TraceBuffer {
    const main = this.main;
    let buf = this.#buffer;
    if (buf === undefined) {
      buf = new TraceBuffer({ cpus: main.nrCpus, bufferSizeKb: main.bufferSizeKb });
      this.#buffer = buf;
    } else if (buf.bufferSizeKb !== main.bufferSizeKb) buf.resize(main.bufferSizeKb);
    return buf;
  }

  /**
   * Takes a snapshot: the main buffer's records go to the snapshot buffer and the snapshot's (the
   * older ones) to the main buffer. With no snapshot buffer the kernel stops tracing instead.
   *
   * @see kernel/trace/trace.c tracing_snapshot_instance_cond()
   */
  take(): void {
    if (this.#buffer === undefined) {
      this.main.tracingOn = false;
      return;
    }
    this.allocate();
    this.main.swap(this.#buffer);
  }

  /** A `snapshot` trigger was added: the buffer must exist while it does. @see tracing_arm_snapshot() */
  arm(): void {
    this.allocate();
    this.#armed++;
  }

  /** A `snapshot` trigger went away. @see tracing_disarm_snapshot() */
  disarm(): void {
    if (this.#armed > 0) this.#armed--;
  }

  /** The snapshot buffer as it is now (none, or its records), for a machine snapshot. */
  save(): SnapshotBufferState {
    return Object.freeze({ buffer: this.#buffer, state: this.#buffer?.save(), armed: this.#armed });
  }

  /** Puts the snapshot buffer back as {@link save} found it. */
  restore(s: SnapshotBufferState): void {
    this.#buffer = s.buffer;
    if (s.state !== undefined) s.buffer?.restore(s.state);
    this.#armed = s.armed;
  }

  /** Writes `snapshot`: 0 frees, 1 allocates and takes a snapshot, anything else empties it. */
  write(value: number): void {
    if (value === 0) {
      this.#buffer = undefined;
      return;
    }
    if (value === 1) {
      this.allocate();
      this.take();
      return;
    }
    this.#buffer?.reset();
  }
}
