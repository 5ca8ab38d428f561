import { describe, expect, it } from 'vitest';
import { type DieArgs, DieChain, DieVal, NotifyResult, type NotifyResultValue } from './die-chain.js';

function record(seen: string[], name: string, result: NotifyResultValue): NotifyResultValue {
  seen.push(name);
  return result;
}

const args = (): DieArgs<null> => ({ val: DieVal.INT3, regs: null, str: 'int3', err: 0, trapnr: 3, cpu: 0 });

describe(DieChain, () => {
  it('should call notifiers in descending priority, ties in registration order', () => {
    const chain = new DieChain<null>();
    const seen: string[] = [];
    chain.register('low', 0, () => record(seen, 'low', NotifyResult.DONE));
    chain.register('high', 10, () => record(seen, 'high', NotifyResult.DONE));
    chain.register('low2', 0, () => record(seen, 'low2', NotifyResult.OK));
    expect(chain.notify(args())).toBe(NotifyResult.OK);
    expect(seen).toEqual(['high', 'low', 'low2']);
    expect(chain.names()).toEqual(['high', 'low', 'low2']);
  });

  it('should stop the walk at NOTIFY_STOP', () => {
    const chain = new DieChain<null>();
    const seen: string[] = [];
    chain.register('first', 5, () => record(seen, 'first', NotifyResult.STOP));
    chain.register('second', 1, () => record(seen, 'second', NotifyResult.OK));
    expect(chain.notify(args())).toBe(NotifyResult.STOP);
    expect(seen).toEqual(['first']);
  });

  it('should allow unregistering during a notification without disturbing the walk in progress', () => {
    const chain = new DieChain<null>();
    const seen: string[] = [];
    let offB: () => void = () => {};
    chain.register('a', 2, () => {
      seen.push('a');
      offB();
      return NotifyResult.DONE;
    });
    offB = chain.register('b', 1, () => record(seen, 'b', NotifyResult.DONE));
    chain.notify(args());
    chain.notify(args());
    expect(seen).toEqual(['a', 'b', 'a']);
    offB();
    expect(chain.names()).toEqual(['a']);
  });
});
