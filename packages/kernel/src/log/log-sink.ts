/**
 * Where a session writes its log as it grows: the header, then one line per entry, in order. A file
 * sink lets a run's log be larger than any string the host can hold.
 */
export interface LogSink {
  write(chunk: string): void;
}
