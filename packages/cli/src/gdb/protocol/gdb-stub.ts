import { AMD64_REGISTERS, amd64TargetXml } from './amd64-registers.js';
import { type BreakpointType, type GdbTarget, type StopEvent, TargetRefusal } from './gdb-target.js';
import { fromHex, fromLittleEndianHex, littleEndianHex, parseHexNumber, textToHex, toHex } from './hex.js';
import { framePacket, RspDecoder } from './rsp-framing.js';
import { stopReply } from './stop-reply.js';

/** Largest packet we accept, announced in `qSupported` (hex). */
const PACKET_SIZE = 0x4000;
/** Most bytes one `m` reply carries (two hex digits each, within the packet size). */
const MAX_READ = (PACKET_SIZE - 16) / 2;

/** How the session ended, for the server to close the connection and finish the run. */
export type StubEnd = 'detach' | 'kill';

/** What the stub writes to and tells its connection. */
export interface StubWire {
  /** Raw bytes (latin1) to gdb. */
  write(data: string): void;
  /** gdb detached or killed the target: the session is over. */
  end(how: StubEnd): void;
  /** Answering a packet failed for a reason that is no refusal (the target broke): the session is over. */
  fail(error: unknown): void;
}

/**
 * The remote-protocol server side for one gdb: decodes packets, answers each from the
 * {@link GdbTarget}, handles acknowledgments (until `QStartNoAckMode`) and Ctrl-C. Packets are
 * answered in order; a resume answers when the target stops. Unknown packets get the empty reply
 * (gdb's "not supported"); malformed ones an `E` reply.
 *
 * @see gdb's manual, "Remote Protocol" › "Packets", "Stop Reply Packets", "General Query Packets"
 */
export class GdbStub {
  private readonly decoder = new RspDecoder();
  private ackMode = true;
  private lastSent = '';
  private queue: Promise<void> = Promise.resolve();
  /** Thread of `Hg` (registers, memory) and of `Hc` (resume). */
  private gThread = 1;
  private cThread = 1;
  private running = false;
  private ended = false;

  constructor(
    private readonly target: GdbTarget,
    private readonly wire: StubWire,
  ) {
    const stop = target.stopEvent();
    if (stop.kind === 'stopped') this.gThread = this.cThread = stop.thread;
  }

  /** Bytes from gdb. */
  receive(chunk: string | Uint8Array): void {
    for (const input of this.decoder.feed(chunk)) {
      if (this.ended) return;
      switch (input.type) {
        case 'interrupt':
          if (this.running) this.target.interrupt();
          break;
        case 'nack':
          if (this.lastSent) this.wire.write(this.lastSent);
          break;
        case 'ack':
          break;
        case 'corrupt':
          if (this.ackMode) this.wire.write('-');
          break;
        case 'packet': {
          if (this.ackMode) this.wire.write('+');
          const payload = input.payload;
          // The OK is still acknowledged by gdb, nothing after it: no packet after this one gets a '+'.
          if (payload === 'QStartNoAckMode') this.ackMode = false;
          this.queue = this.queue.then(() => this.answer(payload));
          break;
        }
      }
    }
  }

  /** Resolves when every packet received so far is answered. */
  settled(): Promise<void> {
    return this.queue;
  }

  private send(payload: string): void {
    if (this.ended) return;
    const packet = framePacket(payload);
    this.lastSent = packet;
    this.wire.write(packet);
  }

  private async answer(payload: string): Promise<void> {
    if (this.ended) return;
    let reply: string | undefined;
    try {
      reply = await this.dispatch(payload);
    } catch (error) {
      if (!(error instanceof TargetRefusal)) {
        this.ended = true;
        this.wire.fail(error);
        return;
      }
      reply = `E${error.code.toString(16).padStart(2, '0')}`;
    }
    if (reply !== undefined) this.send(reply);
  }

  /** The reply to one packet; undefined when none is due (after `k`). */
  private async dispatch(p: string): Promise<string | undefined> {
    const t = this.target;
    switch (p[0]) {
      case '?':
        return stopReply(t.stopEvent());
      case 'g':
        return t
          .readRegisters(this.gThread)
          .map((v, i) => littleEndianHex(v, AMD64_REGISTERS[i].bits))
          .join('');
      case 'G':
        return this.writeAllRegisters(p.slice(1));
      case 'p':
        return this.readRegister(p.slice(1));
      case 'P':
        return this.writeRegister(p.slice(1));
      case 'm':
        return this.readMemory(p.slice(1));
      case 'M':
        return this.writeMemory(p.slice(1), 'hex');
      case 'X':
        return this.writeMemory(p.slice(1), 'binary');
      case 'H':
        return this.setThread(p);
      case 'T':
        return this.threadOf(p.slice(1)) === undefined ? 'E01' : 'OK';
      case 'c':
        return this.resume({ action: 'continue', direction: 'forward', thread: this.cThread });
      case 's':
        return this.resume({ action: 'step', direction: 'forward', thread: this.cThread });
      case 'b':
        if (p === 'bc') return this.resume({ action: 'continue', direction: 'reverse', thread: this.cThread });
        if (p === 'bs') return this.resume({ action: 'step', direction: 'reverse', thread: this.cThread });
        return '';
      case 'Z':
      case 'z':
        return this.breakpoint(p);
      case 'D':
        this.send('OK');
        this.finish('detach');
        return undefined;
      case 'k':
        this.finish('kill');
        return undefined;
      case 'v':
        return this.vPacket(p);
      case 'q':
      case 'Q':
        return this.query(p);
      default:
        return '';
    }
  }

  private finish(how: StubEnd): void {
    if (this.ended) return;
    this.ended = true;
    this.wire.end(how);
  }

  private async resume(request: Parameters<GdbTarget['resume']>[0]): Promise<string> {
    this.running = true;
    let stop: StopEvent;
    try {
      stop = await this.target.resume(request);
    } finally {
      this.running = false;
    }
    if (stop.kind === 'stopped') this.gThread = this.cThread = stop.thread;
    const out = this.target.takeOutput?.() ?? '';
    // Console output goes before the stop reply, while gdb still waits for the target.
    for (let i = 0; i < out.length; i += MAX_READ) this.send(`O${textToHex(out.slice(i, i + MAX_READ / 2))}`);
    return stopReply(stop);
  }

  private vPacket(p: string): Promise<string> | string | undefined {
    if (p === 'vMustReplyEmpty') return '';
    if (p === 'vCont?') return 'vCont;c;C;s;S';
    if (p.startsWith('vKill')) {
      this.send('OK');
      this.finish('kill');
      return undefined;
    }
    if (p.startsWith('vCont;')) {
      // The first action that names a thread (or applies to all) decides: all-stop mode.
      const actions = p.slice(6).split(';');
      let step: number | undefined;
      for (const a of actions) {
        const [what, tid] = a.split(':');
        if (what[0] === 's' || what[0] === 'S') {
          const thread = tid === undefined ? this.cThread : this.threadOf(tid);
          if (thread === undefined) return 'E16';
          step = thread;
          break;
        }
        if (what[0] !== 'c' && what[0] !== 'C') return 'E16';
      }
      return step !== undefined
        ? this.resume({ action: 'step', direction: 'forward', thread: step })
        : this.resume({ action: 'continue', direction: 'forward', thread: this.cThread });
    }
    return '';
  }

  private query(p: string): string {
    const t = this.target;
    if (p.startsWith('qSupported')) {
      return `PacketSize=${PACKET_SIZE.toString(16)};qXfer:features:read+;ReverseStep+;ReverseContinue+;swbreak+;hwbreak+;vContSupported+;QStartNoAckMode+`;
    }
    if (p === 'QStartNoAckMode') return 'OK';
    if (p.startsWith('qXfer:features:read:')) return this.features(p.slice('qXfer:features:read:'.length));
    if (p === 'qfThreadInfo') {
      return `m${Array.from({ length: t.threads }, (_, i) => (i + 1).toString(16)).join(',')}`;
    }
    if (p === 'qsThreadInfo') return 'l';
    if (p === 'qC') return `QC${this.gThread.toString(16)}`;
    if (p.startsWith('qAttached')) return '1';
    if (p.startsWith('qThreadExtraInfo,')) {
      const thread = this.threadOf(p.slice('qThreadExtraInfo,'.length));
      return thread === undefined ? 'E16' : textToHex(t.threadInfo(thread));
    }
    if (p.startsWith('qRcmd,')) {
      const command = fromHex(p.slice(6));
      if (!command) return 'E16';
      let out: string;
      try {
        out = t.monitor(Buffer.from(command).toString('utf8'));
      } catch (error) {
        // A mistake in a monitor command is said in gdb's console, as a command's own output.
        if (!(error instanceof TargetRefusal)) throw error;
        out = `int3: ${error.message}\n`;
      }
      return out === '' ? 'OK' : textToHex(out);
    }
    if (p.startsWith('qSymbol')) return 'OK';
    return '';
  }

  private features(args: string): string {
    const m = /^([^:]+):([0-9a-fA-F]+),([0-9a-fA-F]+)$/.exec(args);
    if (!m) return 'E16';
    if (m[1] !== 'target.xml') return 'E00';
    const xml = amd64TargetXml();
    const offset = Number.parseInt(m[2], 16);
    const length = Number.parseInt(m[3], 16);
    const chunk = xml.slice(offset, offset + length);
    return (offset + length >= xml.length ? 'l' : 'm') + chunk;
  }

  private setThread(p: string): string {
    const which = p[1];
    const id = p.slice(2);
    // -1: all threads, 0: any thread; both keep the current one.
    const thread = id === '-1' || id === '0' ? undefined : this.threadOf(id);
    if (thread === undefined && id !== '-1' && id !== '0') return 'E16';
    if (which === 'g' && thread !== undefined) this.gThread = thread;
    else if (which === 'c' && thread !== undefined) this.cThread = thread;
    else if (which !== 'g' && which !== 'c') return 'E16';
    return 'OK';
  }

  /** A thread id of a packet (hex, maybe `p<pid>.<tid>`), when it names one of ours. */
  private threadOf(text: string): number | undefined {
    const tid = text.includes('.') ? text.slice(text.indexOf('.') + 1) : text;
    const n = parseHexNumber(tid);
    return n !== undefined && n >= 1n && n <= BigInt(this.target.threads) ? Number(n) : undefined;
  }

  private readRegister(arg: string): string {
    const n = parseHexNumber(arg);
    if (n === undefined || n >= BigInt(AMD64_REGISTERS.length)) return 'E16';
    const r = Number(n);
    return littleEndianHex(this.target.readRegisters(this.gThread)[r], AMD64_REGISTERS[r].bits);
  }

  private writeRegister(arg: string): string {
    const m = /^([0-9a-fA-F]+)=([0-9a-fA-F]+)$/.exec(arg);
    const n = m ? Number.parseInt(m[1], 16) : -1;
    if (!m || n >= AMD64_REGISTERS.length || m[2].length !== AMD64_REGISTERS[n].bits / 4) return 'E16';
    this.target.writeRegister(this.gThread, n, fromLittleEndianHex(m[2])!);
    return 'OK';
  }

  private writeAllRegisters(hex: string): string {
    const now = this.target.readRegisters(this.gThread);
    let at = 0;
    const values: bigint[] = [];
    for (const r of AMD64_REGISTERS) {
      const digits = r.bits / 4;
      if (at + digits > hex.length) break;
      const v = fromLittleEndianHex(hex.slice(at, at + digits));
      if (v === undefined) return 'E16';
      values.push(v);
      at += digits;
    }
    if (at !== hex.length) return 'E16';
    values.forEach((v, i) => {
      if (v !== now[i]) this.target.writeRegister(this.gThread, i, v);
    });
    return 'OK';
  }

  private readMemory(arg: string): string {
    const m = /^([0-9a-fA-F]{1,16}),([0-9a-fA-F]{1,8})$/.exec(arg);
    if (!m) return 'E16';
    const length = Math.min(Number.parseInt(m[2], 16), MAX_READ);
    const bytes = this.target.readMemory(this.gThread, BigInt(`0x${m[1]}`), length);
    return bytes.length === 0 && length > 0 ? 'E0e' : toHex(bytes);
  }

  private writeMemory(arg: string, encoding: 'hex' | 'binary'): string {
    const colon = arg.indexOf(':');
    const m = /^([0-9a-fA-F]{1,16}),([0-9a-fA-F]{1,8})$/.exec(colon < 0 ? '' : arg.slice(0, colon));
    if (!m) return 'E16';
    const data = arg.slice(colon + 1);
    const bytes = encoding === 'hex' ? fromHex(data) : new Uint8Array(Buffer.from(data, 'latin1'));
    const length = Number.parseInt(m[2], 16);
    if (!bytes || bytes.length !== length) return 'E16';
    // gdb probes with a zero-length X to learn whether binary writes are supported.
    if (length > 0) this.target.writeMemory(this.gThread, BigInt(`0x${m[1]}`), bytes);
    return 'OK';
  }

  private breakpoint(p: string): string {
    const m = /^([Zz])([0-4]),([0-9a-fA-F]{1,16}),([0-9a-fA-F]{1,8})(;.*)?$/.exec(p);
    if (!m) return 'E16';
    const type = Number(m[2]) as BreakpointType;
    const address = BigInt(`0x${m[3]}`);
    const length = Number.parseInt(m[4], 16);
    const done =
      m[1] === 'Z'
        ? this.target.insertBreakpoint(type, address, length)
        : this.target.removeBreakpoint(type, address, length);
    return done ? 'OK' : '';
  }
}
