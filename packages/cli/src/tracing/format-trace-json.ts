/** One trace record as `int3 trace --format json` prints it. */
export interface TraceJsonLine {
  readonly comm: string;
  readonly pid: number;
  readonly cpu: number;
  /** The irqs-off / need-resched / hardirq / preempt-depth column, e.g. `d....`. */
  readonly flags: string;
  /** Seconds since boot, as printed (microsecond precision). */
  readonly timestamp: string;
  readonly event: string;
  /** `sym+0xoff/0xsize`, or `caller <- function` for a return probe. */
  readonly probe?: string;
  /** The event's arguments, `name=value` in order, values as printed (strings unquoted). */
  readonly args: Readonly<Record<string, string>>;
}

const LINE = /^\s*(.+)-(\d+)\s+\[(\d+)\]\s+(\S+)\s+(\d+\.\d+): ([^:\s]+): (.*)$/;
const ARG = /\s*([^=\s]+)=("(?:[^"\\]|\\.)*"|\S*)/y;

/**
 * Turns ftrace lines (`trace_pipe`) into JSON Lines, one object per record. Lines that are not
 * records (none are expected) are skipped.
 *
 * @see kernel/trace/trace_output.c trace_print_context() (the columns parsed here)
 * @example
 * formatTraceJson('cat-1 [000] d.... 0.000010: open: (do_sys_open+0x0/0x40) dfd=0xffffff9c\n');
 * // '{"comm":"cat","pid":1,"cpu":0,...,"args":{"dfd":"0xffffff9c"}}\n'
 */
export function formatTraceJson(text: string): string {
  let out = '';
  for (const line of text.split('\n')) {
    const record = parseTraceLine(line);
    if (record) out += `${JSON.stringify(record)}\n`;
  }
  return out;
}

/** Parses one ftrace line, or undefined when it is not a record. */
export function parseTraceLine(line: string): TraceJsonLine | undefined {
  const m = LINE.exec(line);
  if (!m) return undefined;
  let body = m[7];
  let probe: string | undefined;
  if (body.startsWith('(')) {
    const close = body.indexOf(')');
    probe = body.slice(1, close);
    body = body.slice(close + 1);
  }
  const args: Record<string, string> = {};
  ARG.lastIndex = 0;
  for (let a = ARG.exec(body); a !== null && a[0] !== ''; a = ARG.exec(body)) {
    const value = a[2];
    args[a[1]] = value.startsWith('"') ? value.slice(1, -1).replace(/\\(.)/g, '$1') : value;
  }
  return {
    comm: m[1].trim(),
    pid: Number(m[2]),
    cpu: Number(m[3]),
    flags: m[4],
    timestamp: m[5],
    event: m[6],
    ...(probe === undefined ? {} : { probe }),
    args,
  };
}
