import { stateHash } from '@int3/kernel';
import { describe, expect, it } from 'vitest';
import { Interrupt } from '../runtime/interrupt.js';
import { defineEvents } from './run-trace.js';
import { progressLine, runWorkloadsSliced } from './run-workloads-sliced.js';
import { createTracedSession, readKernelImage } from './traced-session.js';

const WORKLOADS = [
  ['cat', '/etc/motd'],
  ['spin', '200000'],
];
const image = readKernelImage(undefined, 'test');

function traced() {
  const t = createTracedSession(image, 2);
  defineEvents(t, { definitions: ['p:open do_sys_open dfd=%di'], filters: [] }, 'test');
  return t;
}

describe(runWorkloadsSliced, () => {
  it('should end in the state and trace of one unsliced run', async () => {
    const whole = traced();
    expect(whole.session.runWorkloads(WORKLOADS).reason).toBe('done');
    const sliced = traced();
    const outcome = await runWorkloadsSliced(sliced, WORKLOADS, { interrupt: new Interrupt(), sliceNs: 250_000 });
    expect(outcome.reason).toBe('done');
    const runs = sliced.session.log().filter((e) => e.type === 'input:run');
    expect(runs.length).toBeGreaterThan(3);
    expect(stateHash(sliced.session.machine)).toBe(stateHash(whole.session.machine));
    expect(sliced.fs.read('trace')).toBe(whole.fs.read('trace'));
  });

  it('should stop after the first slice once Ctrl-C was pressed', async () => {
    const t = traced();
    const interrupt = new Interrupt();
    interrupt.request();
    const outcome = await runWorkloadsSliced(t, WORKLOADS, { interrupt, sliceNs: 250_000 });
    expect(outcome).toEqual({ reason: 'interrupted', at: t.session.machine.clock(0), signal: 'SIGINT' });
    expect(t.session.log().filter((e) => e.type === 'input:run')).toHaveLength(1);
  });

  it("should count the probe's hits on the progress line though each slice's records were read away", async () => {
    const t = traced();
    let lines = 0;
    const drain = () => {
      lines += t.fs
        .read('trace_pipe')
        .split('\n')
        .filter((l) => l !== '').length;
    };
    const outcome = await runWorkloadsSliced(t, WORKLOADS, {
      interrupt: new Interrupt(),
      sliceNs: 250_000,
      onSlice: drain,
    });
    expect(outcome.reason).toBe('done');
    expect(lines).toBeGreaterThan(0);
    expect(progressLine(t)).toMatch(new RegExp(` ${lines} hits$`));
  });
});
