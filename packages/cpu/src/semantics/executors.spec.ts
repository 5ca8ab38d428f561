import { describe, expect, it } from 'vitest';
import { CpuSystem } from '../cpu-system.js';
import * as alu from '../exec-alu.js';
import * as bits from '../exec-bits.js';
import * as flow from '../exec-flow.js';
import * as muldiv from '../exec-muldiv.js';
import * as shift from '../exec-shift.js';
import * as string from '../exec-string.js';
import { Op } from '../op.js';
import { EXECUTORS } from './executors.js';

describe('EXECUTORS', () => {
  it('should name executors that exist (exec-*.ts exports, or CpuSystem.execFlags)', () => {
    const exported: Record<string, unknown> = { ...alu, ...bits, ...flow, ...muldiv, ...shift, ...string };
    for (const e of EXECUTORS) {
      const f = e.exec === 'execFlags' ? CpuSystem.prototype.execFlags : exported[e.exec];
      expect([e.exec, typeof f]).toEqual([e.exec, 'function']);
    }
  });

  it('should give each op one executor', () => {
    const ops = EXECUTORS.flatMap((e) => e.ops);
    expect(ops.filter((op, k) => ops.indexOf(op) !== k)).toEqual([]);
    for (const op of ops) expect(Op[op]).toBeTypeOf('number');
  });
});
