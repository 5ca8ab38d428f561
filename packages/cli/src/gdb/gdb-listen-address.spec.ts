import { describe, expect, it } from 'vitest';
import { isLoopback, parseGdbListenAddress } from './gdb-listen-address.js';

describe(parseGdbListenAddress, () => {
  it.each([
    ['1234', { host: '127.0.0.1', port: 1234 }],
    [':1234', { host: '127.0.0.1', port: 1234 }],
    ['0', { host: '127.0.0.1', port: 0 }],
    ['localhost:9', { host: 'localhost', port: 9 }],
    ['0.0.0.0:1234', { host: '0.0.0.0', port: 1234 }],
    ['[::1]:1234', { host: '::1', port: 1234 }],
  ])('should read %s', (text, address) => {
    expect(parseGdbListenAddress(text)).toEqual(address);
  });

  it.each(['', 'abc', '65536', '1:2:3', 'host:', 'a b:1', '-1'])('should refuse %j', (text) => {
    expect(parseGdbListenAddress(text)).toBeUndefined();
  });
});

describe(isLoopback, () => {
  it('should tell local addresses from others', () => {
    expect(['127.0.0.1', 'localhost', '::1', '127.1.2.3'].map(isLoopback)).toEqual([true, true, true, true]);
    expect(['0.0.0.0', '192.168.1.2', 'example.org'].map(isLoopback)).toEqual([false, false, false]);
  });
});
