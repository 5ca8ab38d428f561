import { describe, expect, it } from 'vitest';
import { AMD64_REGISTERS, amd64RegisterNumber, amd64TargetXml } from './amd64-registers.js';
import { GdbStub, type StubEnd } from './gdb-stub.js';
import {
  type BreakpointType,
  type GdbTarget,
  type ResumeRequest,
  type StopEvent,
  TargetRefusal,
} from './gdb-target.js';
import { textToHex } from './hex.js';
import { framePacket, RspDecoder } from './rsp-framing.js';

/** A two-CPU target in memory: 0x1000..0x1fff mapped, registers numbered by value. */
class FakeTarget implements GdbTarget {
  readonly threads = 2;
  readonly memory = new Uint8Array(0x1000).map((_, i) => i & 0xff);
  readonly regs = [0, 1].map((t) => AMD64_REGISTERS.map((_, i) => BigInt(t * 0x100 + i)));
  readonly resumes: ResumeRequest[] = [];
  readonly breakpoints: string[] = [];
  readOnly = false;
  interrupted = 0;
  output = '';
  stop: StopEvent = { kind: 'stopped', thread: 1 };
  /** Resolves the pending resume. */
  release: (() => void) | undefined;

  stopEvent() {
    return this.stop;
  }
  readRegisters(thread: number) {
    return this.regs[thread - 1];
  }
  writeRegister(thread: number, regno: number, value: bigint) {
    if (this.readOnly) throw new TargetRefusal(1, 'read-only');
    this.regs[thread - 1][regno] = value;
  }
  readMemory(_thread: number, address: bigint, length: number) {
    const from = Number(address) - 0x1000;
    if (from < 0 || from >= 0x1000) return new Uint8Array(0);
    return this.memory.slice(from, Math.min(from + length, 0x1000));
  }
  writeMemory(_thread: number, address: bigint, bytes: Uint8Array) {
    if (this.readOnly) throw new TargetRefusal(1, 'read-only');
    this.memory.set(bytes, Number(address) - 0x1000);
  }
  async resume(request: ResumeRequest) {
    this.resumes.push(request);
    if (request.action === 'continue' && request.direction === 'forward') {
      await new Promise<void>((resolve) => (this.release = resolve));
    }
    return this.stop;
  }
  interrupt() {
    this.interrupted++;
    this.release?.();
  }
  insertBreakpoint(type: BreakpointType, address: bigint, length: number) {
    if (type > 2) return false;
    this.breakpoints.push(`+${type}:${address.toString(16)}:${length}`);
    return true;
  }
  removeBreakpoint(type: BreakpointType, address: bigint, length: number) {
    this.breakpoints.push(`-${type}:${address.toString(16)}:${length}`);
    return true;
  }
  threadInfo(thread: number) {
    return `CPU ${thread - 1}`;
  }
  monitor(command: string) {
    if (command === 'bad') throw new TargetRefusal(22, 'bad');
    return `did ${command}\n`;
  }
  takeOutput() {
    const o = this.output;
    this.output = '';
    return o;
  }
}

/** A stub over a fake target, and what gdb would have received (packets decoded, acks kept). */
function connect(target = new FakeTarget()) {
  const decoder = new RspDecoder();
  const received: string[] = [];
  const ends: StubEnd[] = [];
  const failures: unknown[] = [];
  const stub = new GdbStub(target, {
    write: (data) => {
      for (const input of decoder.feed(data)) {
        received.push(input.type === 'packet' ? input.payload : input.type === 'ack' ? '+' : `!${input.type}`);
      }
    },
    end: (how) => ends.push(how),
    fail: (error) => failures.push(error),
  });
  /** Sends packets and returns the replies (acks dropped). */
  const ask = async (...packets: string[]) => {
    received.length = 0;
    for (const p of packets) stub.receive(framePacket(p));
    await stub.settled();
    return received.filter((r) => r !== '+');
  };
  return { stub, target, received, ends, failures, ask };
}

describe(GdbStub, () => {
  it('should answer the handshake gdb 13 sends', async () => {
    const { ask } = connect();
    const [supported] = await ask(
      'qSupported:multiprocess+;swbreak+;hwbreak+;qRelocInsn+;fork-events+;vContSupported+',
    );
    expect(supported.split(';')).toEqual(
      expect.arrayContaining([
        'qXfer:features:read+',
        'ReverseStep+',
        'ReverseContinue+',
        'swbreak+',
        'vContSupported+',
      ]),
    );
    expect(
      await ask('vMustReplyEmpty', 'Hg0', 'qTStatus', '?', 'qfThreadInfo', 'qsThreadInfo', 'qAttached', 'Hc-1', 'qC'),
    ).toEqual(['', 'OK', '', 'T05thread:1;', 'm1,2', 'l', '1', 'OK', 'QC1']);
  });

  it('should acknowledge each packet until QStartNoAckMode, and ask again for a corrupt one', async () => {
    const { stub, received } = connect();
    stub.receive('$?#3f');
    await stub.settled();
    expect(received).toEqual(['+', 'T05thread:1;']);
    received.length = 0;
    stub.receive('$?#00');
    expect(received).toEqual(['!nack']);
    received.length = 0;
    stub.receive(framePacket('QStartNoAckMode'));
    stub.receive(framePacket('?'));
    await stub.settled();
    expect(received).toEqual(['+', 'OK', 'T05thread:1;']);
  });

  it('should send the target description in chunks', async () => {
    const { ask } = connect();
    let xml = '';
    for (let offset = 0; ; offset += 0x100) {
      const [chunk] = await ask(`qXfer:features:read:target.xml:${offset.toString(16)},100`);
      xml += chunk.slice(1);
      if (chunk[0] === 'l') break;
      expect(chunk[0]).toBe('m');
    }
    expect(xml).toBe(amd64TargetXml());
    expect(xml).toContain('<feature name="org.gnu.gdb.i386.core">');
    expect(xml).toContain('<reg name="gs_base" bitsize="64" type="int" regnum="41"/>');
    expect(await ask('qXfer:features:read:other.xml:0,100')).toEqual(['E00']);
  });

  it('should encode the registers of the Hg thread little-endian, 276 bytes of core then fs_base and gs_base', async () => {
    const { ask } = connect();
    const [g] = await ask('g');
    expect(g.length).toBe((276 + 16) * 2);
    expect(g.slice(0, 16)).toBe('0000000000000000');
    // rip (register 16) after sixteen 8-byte registers.
    expect(g.slice(16 * 16, 17 * 16)).toBe('1000000000000000');
    await ask('Hg2');
    const [rip] = await ask(`p${amd64RegisterNumber('rip').toString(16)}`);
    expect(rip).toBe('1001000000000000');
    // eflags is 4 bytes.
    expect(await ask('p11')).toEqual(['11010000']);
  });

  it('should write registers with P and G, and report a refusal as an error', async () => {
    const { ask, target } = connect();
    expect(await ask('P10=efbeadde00000000')).toEqual(['OK']);
    expect(target.regs[0][16]).toBe(0xdeadbeefn);
    const [g] = await ask('g');
    const changed = `aa${g.slice(2)}`;
    expect(await ask(`G${changed}`)).toEqual(['OK']);
    expect(target.regs[0][0]).toBe(0xaan);
    expect(await ask('P10=12', 'Gzz', 'p99')).toEqual(['E16', 'E16', 'E16']);
    target.readOnly = true;
    expect(await ask('P0=0000000000000000', 'M1000,1:00', 'X1000,1:a')).toEqual(['E01', 'E01', 'E01']);
  });

  it('should read and write memory, partly or not at all where it is unmapped', async () => {
    const { ask, target } = connect();
    expect(await ask('m1000,4', 'm1ffe,4', 'm3000,4', 'm1000,0')).toEqual(['00010203', 'feff', 'E0e', '']);
    expect(await ask('M1004,2:abcd', 'X1006,0:', 'X1006,2:#}')).toEqual(['OK', 'OK', 'OK']);
    expect([...target.memory.slice(4, 8)]).toEqual([0xab, 0xcd, 0x23, 0x7d]);
    expect(await ask('M1004,2:ab', 'mzz')).toEqual(['E16', 'E16']);
  });

  it('should insert and remove breakpoints and watchpoints, and say when a kind is not supported', async () => {
    const { ask, target } = connect();
    expect(await ask('Z0,ffffffff81001c80,1', 'z0,ffffffff81001c80,1', 'Z2,1000,8', 'Z3,1000,8', 'Z9,1,1')).toEqual([
      'OK',
      'OK',
      'OK',
      '',
      'E16',
    ]);
    expect(target.breakpoints).toEqual(['+0:ffffffff81001c80:1', '-0:ffffffff81001c80:1', '+2:1000:8']);
  });

  it('should resume as vCont, s, bs and bc ask, on the right thread', async () => {
    const { ask, target } = connect();
    target.stop = { kind: 'stopped', thread: 2, reason: { type: 'swbreak' } };
    expect(await ask('vCont?', 'vCont;s:2;c', 'bs', 'bc', 's')).toEqual([
      'vCont;c;C;s;S',
      'T05thread:2;swbreak:;',
      'T05thread:2;swbreak:;',
      'T05thread:2;swbreak:;',
      'T05thread:2;swbreak:;',
    ]);
    expect(target.resumes).toEqual([
      { action: 'step', direction: 'forward', thread: 2 },
      { action: 'step', direction: 'reverse', thread: 2 },
      { action: 'continue', direction: 'reverse', thread: 2 },
      { action: 'step', direction: 'forward', thread: 2 },
    ]);
    expect(await ask('vCont;s:9', 'vCont;x')).toEqual(['E16', 'E16']);
  });

  it('should stop a running continue on Ctrl-C, and send console output before the stop reply', async () => {
    const { stub, target, received } = connect();
    stub.receive(framePacket('vCont;c'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(received).toEqual(['+']);
    target.output = 'hello\n';
    target.stop = { kind: 'stopped', thread: 1, signal: 2 };
    stub.receive('\x03');
    await stub.settled();
    expect(target.interrupted).toBe(1);
    expect(received).toEqual(['+', `O${textToHex('hello\n')}`, 'T02thread:1;']);
  });

  it('should run monitor commands, and name threads', async () => {
    const { ask } = connect();
    expect(await ask(`qRcmd,${textToHex('info')}`, `qRcmd,${textToHex('bad')}`, 'qRcmd,zz')).toEqual([
      textToHex('did info\n'),
      textToHex('int3: bad\n'),
      'E16',
    ]);
    expect(await ask('qThreadExtraInfo,2', 'qThreadExtraInfo,7', 'T2', 'T3')).toEqual([
      textToHex('CPU 1'),
      'E16',
      'OK',
      'E01',
    ]);
  });

  it('should end the session on D (after OK) and k (no reply), and answer nothing after', async () => {
    const a = connect();
    expect(await a.ask('D')).toEqual(['OK']);
    expect(a.ends).toEqual(['detach']);
    expect(await a.ask('?')).toEqual([]);
    const b = connect();
    expect(await b.ask('k')).toEqual([]);
    expect(b.ends).toEqual(['kill']);
    const c = connect();
    expect(await c.ask('vKill;1')).toEqual(['OK']);
    expect(c.ends).toEqual(['kill']);
  });

  it('should answer unknown packets with the empty reply', async () => {
    const { ask } = connect();
    expect(await ask('qOffsets', 'vFile:setfs:0', '!', 'Qbogus')).toEqual(['', '', '', '']);
  });

  it('should report a target that breaks (not a refusal) and stop answering', async () => {
    const target = new FakeTarget();
    target.readRegisters = () => {
      throw new Error('broken');
    };
    const { ask, failures } = connect(target);
    expect(await ask('g', '?')).toEqual([]);
    expect(failures).toEqual([new Error('broken')]);
  });
});
