import { Reg } from '@int3/cpu';
import { describe, expect, it } from 'vitest';
import { GateDispatcher } from '../src/machine/gate-dispatcher.js';
import { HOST_CALL_JUMPED, type HostCalls } from '../src/machine/host-calls.js';
import { Machine } from '../src/machine/machine.js';
import { readSampleImage, sampleProgram } from '../src/sample-image.js';
import { PtRegs } from '../src/traps/pt-regs.js';

const image = readSampleImage();

/** Gate `jump` moves the CPU to gate `answer` (rax = 7 on the way) and answers HOST_CALL_JUMPED. */
function setup() {
  const m = Machine.boot({ image, cpus: 1, programs: sampleProgram });
  const seen: string[] = [];
  const answer = m.kernel.hostCalls.define('test_answer', () => {
    seen.push('answer');
    return 42n;
  });
  const jump = m.kernel.hostCalls.define('test_jump', (ctx) => {
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
    expect(m.kernel.guest.call(0, jump, [])).toBe(42n);
    expect(seen).toEqual(['jump', 'answer']);
  });

  it('should leave rsp and rax to the service when a running CPU takes the gate', () => {
    const { m, seen, jump, answer } = setup();
    const c = m.cpus[0];
    c.rip = jump;
    const rsp = c.getReg(Reg.RSP);
    // The dispatcher the run loop uses, over this machine's CPUs and gate table.
    const gates = new GateDispatcher({
      cpus: m.cpus,
      regs: m.cpus.map((cpu) => new PtRegs(cpu)),
      hostCalls: m.kernel.hostCalls as HostCalls,
      sched: { current: [undefined], switchOut: () => undefined, block: () => {} },
      oops: () => {
        throw new Error('a bound gate must not oops');
      },
    });
    expect(gates.handle(0)).toBe(true);
    expect(seen).toEqual(['jump']);
    expect(c.rip).toBe(answer);
    expect(c.getReg(Reg.RSP)).toBe(rsp);
    expect(c.getReg(Reg.RAX)).toBe(7n);
  });
});

describe('inline host gates', () => {
  /** Host-to-guest call of `jump` (whose service jumps to `answer`), counting the CPU's run() calls. */
  function callCountingRuns(inline: boolean) {
    const { m, seen, jump } = setup();
    if (inline) m.kernel.hostCalls.bind('test_jump', jump, m.kernel.hostCalls.lookup(jump)!.handler, { inline: true });
    const c = m.cpus[0];
    const run = c.run.bind(c);
    let runs = 0;
    c.run = (...args) => {
      runs++;
      return run(...args);
    };
    const result = m.kernel.guest.call(0, jump, []);
    return { result, seen, runs };
  }

  it('should run an inline gate inside the CPU loop: same result, one exit fewer', () => {
    const exiting = callCountingRuns(false);
    const inline = callCountingRuns(true);
    expect(inline.result).toBe(42n);
    expect(inline.seen).toEqual(['jump', 'answer']);
    expect(inline).toMatchObject({ result: exiting.result, seen: exiting.seen });
    expect(inline.runs).toBe(exiting.runs - 1);
  });

  it('should refuse an inline gate whose service does not move rip', () => {
    const { m, answer } = setup();
    m.kernel.hostCalls.bind('test_answer', answer, () => 42n, { inline: true });
    expect(() => m.kernel.guest.call(0, answer, [])).toThrow(/inline host gate test_answer did not move rip/);
  });
});
