import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkArchitecture, formatViolation, violationKey } from './check-architecture.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PACKAGES = ['cpu', 'kernel', 'kprobes', 'tracer-plugins', 'cli'];

/**
 * Each rule is proved by planting its violation in a temporary copy of the repository's packages
 * (manifests and sources) and seeing the checker report it — and nothing else new.
 */
describe('checkArchitecture on a planted violation', () => {
  let copy: string;
  let baseline: Set<string>;
  const planted = (edit: (root: string) => void, undo: (root: string) => void): string[] => {
    edit(copy);
    try {
      return checkArchitecture(copy)
        .filter((v) => !baseline.has(violationKey(v)))
        .map(formatViolation);
    } finally {
      undo(copy);
    }
  };
  const file = (rel: string, text: string) => ({
    edit: (root: string) => writeFileSync(join(root, rel), text),
    undo: (root: string) => rmSync(join(root, rel)),
  });

  beforeAll(() => {
    copy = mkdtempSync(join(tmpdir(), 'int3-architecture-'));
    for (const p of PACKAGES) {
      cpSync(join(ROOT, 'packages', p, 'package.json'), join(copy, 'packages', p, 'package.json'));
      cpSync(join(ROOT, 'packages', p, 'src'), join(copy, 'packages', p, 'src'), { recursive: true });
    }
    baseline = new Set(checkArchitecture(copy).map(violationKey));
  });
  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  it('should catch a type-only import against the direction', () => {
    const f = file(
      'packages/kernel/src/planted.ts',
      "import type { Kprobes } from '@int3/kprobes';\nexport type K = Kprobes;\n",
    );
    expect(planted(f.edit, f.undo)).toEqual([
      'packages/kernel/src/planted.ts:1: direction: @int3/kernel imports @int3/kprobes, against the direction cli → tracer-plugins → kprobes → kernel → cpu',
    ]);
  });

  it('should catch a dynamic import against the direction, and not an import written in a string', () => {
    const f = file(
      'packages/cpu/src/planted.ts',
      "export const code = `import { x } from '@int3/cli';`;\nexport const load = () => import('@int3/kernel');\n",
    );
    expect(planted(f.edit, f.undo)).toEqual([
      'packages/cpu/src/planted.ts:2: direction: @int3/cpu imports @int3/kernel, against the direction cli → tracer-plugins → kprobes → kernel → cpu',
    ]);
  });

  it('should catch a dependency declared against the direction', () => {
    const manifest = join('packages', 'kernel', 'package.json');
    let original = '';
    const found = planted(
      (root) => {
        original = readFileSync(join(root, manifest), 'utf8');
        const json = JSON.parse(original);
        json.devDependencies = { ...json.devDependencies, '@int3/kprobes': 'workspace:*' };
        writeFileSync(join(root, manifest), JSON.stringify(json));
      },
      (root) => writeFileSync(join(root, manifest), original),
    );
    expect(found).toEqual([
      'packages/kernel/package.json: dependency: @int3/kernel declares @int3/kprobes in devDependencies, against the direction cli → tracer-plugins → kprobes → kernel → cpu',
    ]);
  });

  it('should catch an import cycle inside a package, through type imports', () => {
    const a = file(
      'packages/tracer-plugins/src/planted-a.ts',
      "import type { B } from './planted-b.js';\nexport type A = B[];\n",
    );
    const b = file(
      'packages/tracer-plugins/src/planted-b.ts',
      "import type { A } from './planted-a.js';\nexport type B = A | 1;\n",
    );
    const found = planted(
      (root) => {
        a.edit(root);
        b.edit(root);
      },
      (root) => {
        a.undo(root);
        b.undo(root);
      },
    );
    expect(found).toEqual([
      'packages/tracer-plugins/src/planted-a.ts: cycle: an import cycle of 2 files in @int3/tracer-plugins: src/planted-a.ts, src/planted-b.ts',
    ]);
  });

  it("should catch kprobes' core importing its arch", () => {
    const f = file('packages/kprobes/src/core/planted.ts', "export * from '../arch/x86/decode-insn.js';\n");
    expect(planted(f.edit, f.undo)).toEqual([
      "packages/kprobes/src/core/planted.ts:1: core-imports-arch: kprobes' core imports its arch (packages/kprobes/src/arch/x86/decode-insn.ts); core knows the arch only through its interface of arch hooks",
    ]);
  });

  it("should catch a file importing another package's internals, by path or by an unexported subpath", () => {
    const f = file(
      'packages/kprobes/src/planted.ts',
      "import { Cpu } from '../../cpu/src/cpu.js';\nimport { parseElf } from '@int3/cpu/src/elf/parse-elf.js';\nexport const x = [Cpu, parseElf];\n",
    );
    const found = planted(f.edit, f.undo);
    expect(found).toHaveLength(2);
    expect(found[0]).toMatch(
      /^packages\/kprobes\/src\/planted\.ts:1: internals: '\.\.\/\.\.\/cpu\/src\/cpu\.js' reaches into @int3\/cpu's files \(packages\/cpu\/src\/cpu\.ts\); import what it exports \(@int3\/cpu/,
    );
    expect(found[1]).toMatch(
      /^packages\/kprobes\/src\/planted\.ts:2: internals: '@int3\/cpu\/src\/elf\/parse-elf\.js' is not a subpath @int3\/cpu exports/,
    );
  });
});
