import { Reg } from '@int3/cpu';
import { describe, expect, it } from 'vitest';
import { HOST_CALL_JUMPED } from '../src/machine/host-calls.js';
import { Machine } from '../src/machine/machine.js';
import { readSampleImage, sampleProgram } from '../src/sample-image.js';

const image = readSampleImage();

/** Gate `jump` moves the CPU to gate `answer` (rax = 7 on the way) and answers HOST_CALL_JUMPED. */
function setup() {
  const m = Machine.boot({ image, cpus: 1, programs: sampleProgram });
  const seen: string[] = [];
  const answer = m.hostCalls.define('test_answer', () => {
    seen.push('answer');
    return 42n;
  });
  const jump = m.hostCalls.define('test_jump', (ctx) => {
    seen.push('jump');
    const c = m.cpus[ctx.cpu];
    c.setReg(Reg.RAX, 7n);
    c.rip = answer;
    return HOST_CALL_JUMPED;
  });
  return { m, seen, jump, answer };
}

describe('HOST_CALL_JUMPED', () => {
  it('should continue a host-to-guest call where the service put rip, without a ret', () => {
    const { m, seen, jump } = setup();
    // With a ret after `jump`, the call would return 7 at once; it goes through `answer` instead.
    expect(m.guest.call(0, jump, [])).toBe(42n);
    expect(seen).toEqual(['jump', 'answer']);
  });

  it('should leave rsp and rax to the service when a running CPU takes the gate', () => {
    const { m, seen, jump, answer } = setup();
    const c = m.cpus[0];
    c.rip = jump;
    const rsp = c.getReg(Reg.RSP);
    expect(m.handleGate(0)).toBe(true);
    expect(seen).toEqual(['jump']);
    expect(c.rip).toBe(answer);
    expect(c.getReg(Reg.RSP)).toBe(rsp);
    expect(c.getReg(Reg.RAX)).toBe(7n);
  });
});
