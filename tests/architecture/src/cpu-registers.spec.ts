import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from './import-graph.js';
import { workspacePackages } from './workspace.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * How the CPU keeps its registers (int32 halves in `R`/`H`, RIP in `ripLo`/`ripHi`) is the CPU's own
 * business, so that its layout may change (a block compiler keeps registers in locals): other
 * packages go through its register API (`regLo`/`regHi`/`setRegHalves`, `ripLow`/`ripHigh`/
 * `setRipHalves`, `getReg`/`setReg`, `rip`).
 */
const RAW_REGISTERS = /[\w)\]]\.(?:R|H)\b|\.rip(?:Lo|Hi)\b/;

describe('the CPU register file', () => {
  it('should be reached by no package but the CPU except through its register API', () => {
    // The CPU itself, and this package (whose planted example below names them).
    const outside = workspacePackages(ROOT).filter((p) => p.name !== '@int3/cpu' && p.dir !== 'tests/architecture');
    const hits: string[] = [];
    for (const pkg of outside) {
      for (const file of sourceFiles(ROOT, pkg.dir)) {
        readFileSync(join(ROOT, file), 'utf8')
          .split('\n')
          .forEach((line, n) => {
            if (RAW_REGISTERS.test(line)) hits.push(`${file}:${n + 1}: ${line.trim()}`);
          });
      }
    }
    expect(hits).toEqual([]);
  });

  it('should catch a planted reach into the halves', () => {
    expect(RAW_REGISTERS.test('const lo = cpu.R[Reg.RSP];')).toBe(true);
    expect(RAW_REGISTERS.test('c.ripHi = 0;')).toBe(true);
    // The arrays themselves, taken whole (optimized-callback.ts did until the CPU's type hid them).
    expect(RAW_REGISTERS.test('const R = c.R;')).toBe(true);
    expect(RAW_REGISTERS.test('c.setRipHalves(lo, hi); c.regLo(4); c.ripLow;')).toBe(false);
  });
});
