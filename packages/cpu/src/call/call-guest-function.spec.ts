import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ElfFile } from '../elf/elf-file.js';
import { parseElf } from '../elf/parse-elf.js';
import { SymbolTable } from '../elf/symbol-table.js';
import { ExceptionVector } from '../exception-vector.js';
import { sampleElfUrl } from '../sample-elf.js';
import { CALL_SCRATCH, callGuestFunction, startGuestCall } from './call-guest-function.js';

const elf: ElfFile = parseElf(readFileSync(sampleElfUrl()), 'sample.elf');
const symbols = SymbolTable.fromElf(elf);
const fn = (name: string) => symbols.lookup(name)!.address;
const int = (value: bigint) => ({ kind: 'int', value }) as const;

describe(callGuestFunction, () => {
  it('should return the CRC-32 check value of "123456789" (0xcbf43926)', () => {
    const call = callGuestFunction(elf, fn('hash_crc32'), [{ kind: 'str', text: '123456789' }, int(9n)]);
    expect(call.outcome).toEqual({ kind: 'returned', value: 0xcbf43926n });
    expect(call.instructions).toBeGreaterThan(9);
    expect(call.pointers).toEqual([CALL_SCRATCH, undefined]);
  });

  it('should return rax as an unsigned 64-bit value (div_s64(-100, 7) = -14)', () => {
    const call = callGuestFunction(elf, fn('div_s64'), [int(BigInt.asUintN(64, -100n)), int(7n)]);
    expect(call.outcome).toEqual({ kind: 'returned', value: BigInt.asUintN(64, -14n) });
  });

  it('should hand back what the function wrote into a buffer argument', () => {
    const call = callGuestFunction(elf, fn('memset'), [{ kind: 'buf', size: 5 }, int(0x41n), int(4n)]);
    expect(call.outcome).toEqual({ kind: 'returned', value: CALL_SCRATCH });
    expect([...call.memory[0]!]).toEqual([0x41, 0x41, 0x41, 0x41, 0]);
  });

  it('should pass bytes arguments by address, each 16-byte aligned', () => {
    const data = new Uint8Array([1, 2, 3]);
    const call = callGuestFunction(elf, fn('hash_crc32'), [{ kind: 'bytes', data }, int(3n), { kind: 'buf', size: 1 }]);
    expect(call.pointers).toEqual([CALL_SCRATCH, undefined, CALL_SCRATCH + 16n]);
  });

  it('should stop with the budget reason when maxInsns runs out', () => {
    const call = callGuestFunction(elf, fn('hash_crc32'), [{ kind: 'str', text: '123456789' }, int(9n)], {
      maxInsns: 5,
    });
    expect(call.outcome.kind).toBe('stopped');
    expect(call.outcome.kind === 'stopped' && call.outcome.result.reason).toBe('budget');
    expect(call.instructions).toBe(5);
  });

  it('should report a fault as an outcome, with the trap it raised', () => {
    const call = callGuestFunction(elf, 0x1000n, []);
    expect(call.outcome.kind === 'stopped' && call.outcome.result).toMatchObject({
      reason: 'exception',
      vector: ExceptionVector.PageFault,
      rip: 0x1000n,
    });
    expect(call.traps.map((t) => t.vector)).toContain(ExceptionVector.PageFault);
  });

  it('should refuse more than six arguments', () => {
    const seven = Array.from({ length: 7 }, () => int(0n));
    expect(() => callGuestFunction(elf, fn('div_s64'), seven)).toThrow(RangeError);
  });
});

describe(startGuestCall, () => {
  it('should give the same result run in stretches of 7 instructions as in one run', () => {
    const args = [{ kind: 'str', text: '123456789' }, int(9n)] as const;
    const whole = callGuestFunction(elf, fn('hash_crc32'), args);
    const call = startGuestCall(elf, fn('hash_crc32'), args);
    let stretches = 1;
    while (!call.run(7)) stretches++;
    const sliced = call.finish();
    expect(stretches).toBeGreaterThanOrEqual(Math.ceil(whole.instructions / 7));
    expect(stretches).toBeLessThanOrEqual(Math.ceil(whole.instructions / 7) + 1);
    expect(sliced.outcome).toEqual(whole.outcome);
    expect(sliced.instructions).toBe(whole.instructions);
    expect(sliced.traps).toEqual(whole.traps);
  });
});
