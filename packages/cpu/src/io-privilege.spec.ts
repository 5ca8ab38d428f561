import { describe, expect, it } from 'vitest';
import { testMachine } from './test-machine.fixture.js';

const CLI = [0xfa];
const STI = [0xfb];
/** in al, 0x60 */
const IN_AL = [0xe4, 0x60];
/** out 0x80, al */
const OUT_AL = [0xe6, 0x80];
const IF = 0x200;

/** A CPU at CPL 3 with RFLAGS' IOPL field set to `iopl`. */
function user(code: readonly number[], iopl: number, flags = 0) {
  const m = testMachine(code);
  m.cpu.cs = 0x33;
  m.cpu.rflags = flags | (iopl << 12);
  return m;
}

// Intel SDM Vol. 2A CLI, Vol. 2B STI, IN, OUT: in protected and long mode each is allowed when
// CPL <= IOPL and raises #GP(0) otherwise (no VME/PVI; for in/out, no TSS I/O bitmap to grant a port).
describe('instructions under the I/O privilege level', () => {
  it('should run cli and sti at CPL 3 when IOPL is 3, as at CPL 0', () => {
    const c = user(CLI, 3, IF);
    expect(c.cpu.step()).toMatchObject({ reason: 'budget' });
    expect(c.cpu.rflags & IF).toBe(0);
    const s = user(STI, 3);
    expect(s.cpu.step()).toMatchObject({ reason: 'budget' });
    expect(s.cpu.rflags & IF).toBe(IF);
  });

  it('should raise #GP(0) for cli and sti at CPL 3 when IOPL is below 3, IF unchanged', () => {
    for (const iopl of [0, 1, 2]) {
      const c = user(CLI, iopl, IF);
      expect(c.cpu.step()).toEqual({ reason: 'exception', vector: 13, errorCode: 0, rip: 0x400000n });
      expect(c.cpu.rflags & IF).toBe(IF);
      const s = user(STI, iopl);
      expect(s.cpu.step()).toMatchObject({ reason: 'exception', vector: 13, errorCode: 0 });
      expect(s.cpu.rflags & IF).toBe(0);
    }
  });

  it('should let in and out reach the ports at CPL 3 when IOPL is 3, and refuse them below', () => {
    const seen: string[] = [];
    const io = {
      in: (port: number, size: number) => {
        seen.push(`in ${port.toString(16)}/${size}`);
        return 0x5a;
      },
      out: (port: number, size: number, value: number) => void seen.push(`out ${port.toString(16)}/${size}=${value}`),
    };
    const m = user([...IN_AL, ...OUT_AL], 3);
    m.cpu.io = io;
    m.cpu.step();
    m.cpu.step();
    expect(seen).toEqual(['in 60/1', 'out 80/1=90']);
    const refused = user(IN_AL, 0);
    refused.cpu.io = io;
    expect(refused.cpu.step()).toMatchObject({ reason: 'exception', vector: 13, errorCode: 0 });
    expect(seen).toHaveLength(2);
  });
});
