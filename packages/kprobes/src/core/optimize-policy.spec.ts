import { describe, expect, it } from 'vitest';
import { type OptimizePolicyHost, optimizePolicyRefusal } from './optimize-policy.js';
import { ProbeSite, ProbeState } from './probe-site.js';

const k: OptimizePolicyHost = { trampolineSite: undefined, allArmed: true };

function site(...probes: { postHandler?: () => void; breakHandler?: () => number; flags?: number }[]): ProbeSite {
  const s = new ProbeSite(0x1000n, 'f+0x0', undefined, { slot: 0n, opcode: 0x55, text: 'push %rbp' });
  for (const p of probes) s.children.push(new ProbeState(p, 'k', s));
  s.armed = true;
  return s;
}

describe(optimizePolicyRefusal, () => {
  it('should accept an armed, enabled site without a post- or break handler', () => {
    expect(optimizePolicyRefusal(k, site({}), true)).toBeUndefined();
  });

  it('should say why a site waits: sysctl, disabled, post_handler, jprobe, unused, not armed', () => {
    expect(optimizePolicyRefusal(k, site({}), false)).toBe('optimization is off (debug.kprobes-optimization=0)');
    expect(optimizePolicyRefusal(k, site({ flags: 2 }), true)).toBe('disabled');
    expect(optimizePolicyRefusal(k, site({}, { postHandler: () => {} }), true)).toBe('has a post_handler');
    expect(optimizePolicyRefusal(k, site({ breakHandler: () => 0 }), true)).toBe('has a break_handler (jprobe)');
    expect(optimizePolicyRefusal(k, site(), true)).toBe('unused');
    const idle = site({});
    idle.armed = false;
    expect(optimizePolicyRefusal(k, idle, true)).toBe('not armed');
  });

  it('should ignore a disabled child post-handler', () => {
    expect(optimizePolicyRefusal(k, site({}, { postHandler: () => {}, flags: 2 }), true)).toBeUndefined();
  });
});
