import { describe, expect, it } from 'vitest';
import { checksum, escapeBinary, framePacket, RspDecoder, unescapeBinary } from './rsp-framing.js';

describe(checksum, () => {
  it('should sum the bytes modulo 256 in two hex digits', () => {
    expect(checksum('')).toBe('00');
    expect(checksum('OK')).toBe('9a');
    expect(checksum('qSupported')).toBe('37');
  });
});

describe(framePacket, () => {
  it('should frame and escape a payload', () => {
    expect(framePacket('OK')).toBe('$OK#9a');
    expect(framePacket('a#b')).toBe(`$a}\x03b#${checksum('a}\x03b')}`);
  });
});

describe(escapeBinary, () => {
  it('should escape $ # } and * and come back unchanged', () => {
    const data = 'x$y#z}w*v\x00\xff';
    expect(escapeBinary(data)).toBe('x}\x04y}\x03z}]w}\x0av\x00\xff');
    expect(unescapeBinary(escapeBinary(data))).toBe(data);
  });

  it('should expand run-length encoding on input', () => {
    // '0* ' is '0' then ' ' (32) − 29 = 3 more zeros.
    expect(unescapeBinary('0* ')).toBe('0000');
  });
});

describe(RspDecoder, () => {
  it('should split acks, packets and Ctrl-C, across chunks', () => {
    const d = new RspDecoder();
    expect(d.feed('+$qSupp')).toEqual([{ type: 'ack' }]);
    expect(d.feed('orted#37-\x03')).toEqual([
      { type: 'packet', payload: 'qSupported' },
      { type: 'nack' },
      { type: 'interrupt' },
    ]);
  });

  it('should report a packet with a bad checksum as corrupt', () => {
    expect(new RspDecoder().feed('$OK#00')).toEqual([{ type: 'corrupt' }]);
  });

  it('should unescape binary payloads (X packets)', () => {
    const body = 'X0,1:}\x03';
    expect(new RspDecoder().feed(`$${body}#${checksum(body)}`)).toEqual([{ type: 'packet', payload: 'X0,1:#' }]);
  });

  it('should ignore noise outside packets and drop an endless one', () => {
    const d = new RspDecoder();
    expect(d.feed('garbage')).toEqual([]);
    expect(d.feed(`$${'a'.repeat(0x4001)}`)).toEqual([{ type: 'corrupt' }]);
    expect(d.feed('$OK#9a')).toEqual([{ type: 'packet', payload: 'OK' }]);
  });
});
