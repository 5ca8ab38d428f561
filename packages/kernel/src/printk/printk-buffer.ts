import { formatTimestamp } from '../time/virtual-time.js';

/** Console log levels: `KERN_EMERG` 0 … `KERN_DEBUG` 7. */
export const LogLevel = { EMERG: 0, ALERT: 1, CRIT: 2, ERR: 3, WARNING: 4, NOTICE: 5, INFO: 6, DEBUG: 7 } as const;

/** The level of a message that names none (`CONFIG_MESSAGE_LOGLEVEL_DEFAULT`). */
export const DEFAULT_MESSAGE_LOGLEVEL = LogLevel.WARNING;

/** One line of the kernel log. */
export interface PrintkRecord {
  /** Sequence number, from 0, never reused (records dropped from a full buffer leave gaps). */
  readonly seq: number;
  /** Virtual time of the message. */
  readonly timestampNs: number;
  readonly level: number;
  /** The CPU that logged it. */
  readonly cpu: number;
  /** The line, without its level prefix or newline. */
  readonly text: string;
}

/** A line a CPU has not terminated yet (a later `KERN_CONT` message may continue it). */
interface OpenLine {
  readonly level: number;
  readonly ts: number;
  readonly text: string;
}

/** A {@link PrintkBuffer}'s state as plain, immutable data (for machine snapshots). */
export interface PrintkBufferState {
  readonly lines: readonly PrintkRecord[];
  readonly bytes: number;
  readonly nextSeq: number;
  readonly open: readonly (readonly [number, OpenLine])[];
}

/**
 * The printk ring buffer: lines with virtual timestamps, oldest dropped when the byte budget is
 * exceeded. A `KERN_SOH` level prefix (`"\x01" + digit`) sets a line's level; `KERN_CONT` (`"\x01c"`)
 * continues the CPU's open line.
 *
 * @see kernel/printk/printk.c vprintk_store(), log_store()
 */
/** The log buffer as a machine's users read it (`dmesg`); the kernel alone stores into it. */
export type PrintkView = Pick<PrintkBuffer, 'records' | 'dmesg'>;

export class PrintkBuffer {
  private readonly lines: PrintkRecord[] = [];
  private bytes = 0;
  private nextSeq = 0;
  private readonly open = new Map<number, OpenLine>();

  /** @param capacityBytes text bytes kept before the oldest lines are dropped (`log_buf_len`). */
  constructor(private readonly capacityBytes = 1 << 17) {}

  /**
   * Stores a message (possibly several lines, possibly an unterminated line that a later
   * `KERN_CONT` message continues). Returns the records completed by this call.
   */
  store(message: string, timestampNs: number, cpu: number): PrintkRecord[] {
    let level: number = DEFAULT_MESSAGE_LOGLEVEL;
    let text = message;
    let cont = false;
    if (text.charCodeAt(0) === 1 && text.length >= 2) {
      const c = text[1];
      if (c >= '0' && c <= '7') level = Number(c);
      else if (c === 'c') cont = true;
      text = text.slice(2);
    }
    const pending = this.open.get(cpu);
    if (pending && !cont) this.flushOpen(cpu);
    const done: PrintkRecord[] = [];
    const parts = text.split('\n');
    for (let i = 0; i < parts.length; i++) {
      const last = i === parts.length - 1;
      const cur = this.open.get(cpu);
      const piece = cur ? cur.text + parts[i] : parts[i];
      const lvl = cur ? cur.level : level;
      const ts = cur ? cur.ts : timestampNs;
      if (last) {
        if (parts[i] === '' && !cur) break;
        this.open.set(cpu, { level: lvl, ts, text: piece });
      } else {
        this.open.delete(cpu);
        done.push(this.append(lvl, ts, cpu, piece));
      }
    }
    return done;
  }

  /** Completes a CPU's unterminated line, as the next non-continuation message would. */
  flushOpen(cpu: number): PrintkRecord | undefined {
    const cur = this.open.get(cpu);
    if (!cur) return undefined;
    this.open.delete(cpu);
    return this.append(cur.level, cur.ts, cpu, cur.text);
  }

  /** The lines kept, oldest first. */
  records(): readonly PrintkRecord[] {
    return this.lines;
  }

  /**
   * The buffer's state (records are immutable, so they are shared).
   * @internal Snapshot plumbing: the machine snapshot saves and restores it.
   */
  save(): PrintkBufferState {
    return Object.freeze({
      lines: Object.freeze([...this.lines]),
      bytes: this.bytes,
      nextSeq: this.nextSeq,
      open: Object.freeze([...this.open]),
    });
  }

  /**
   * Puts the buffer back into a state from {@link save}.
   * @internal Snapshot plumbing: the machine snapshot saves and restores it.
   */
  restore(state: PrintkBufferState): void {
    this.lines.length = 0;
    for (const r of state.lines) this.lines.push(r);
    this.bytes = state.bytes;
    this.nextSeq = state.nextSeq;
    this.open.clear();
    for (const [cpu, line] of state.open) this.open.set(cpu, line);
  }

  /** `dmesg` output: `[    0.000123] text` per line. */
  dmesg(): string {
    return this.lines.map((r) => `[${formatTimestamp(r.timestampNs)}] ${r.text}\n`).join('');
  }

  private append(level: number, timestampNs: number, cpu: number, text: string): PrintkRecord {
    const rec: PrintkRecord = Object.freeze({ seq: this.nextSeq++, timestampNs, level, cpu, text });
    this.lines.push(rec);
    this.bytes += text.length + 1;
    while (this.bytes > this.capacityBytes && this.lines.length > 1) {
      const dropped = this.lines.shift()!;
      this.bytes -= dropped.text.length + 1;
    }
    return rec;
  }
}
