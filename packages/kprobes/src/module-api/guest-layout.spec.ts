import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IMAGE_DIR } from '@int3/kernel';
import { describe, expect, it } from 'vitest';
import { JprobeLayout, KprobeLayout, KretprobeInstanceLayout, KretprobeLayout } from './guest-layout.js';

const header = readFileSync(join(IMAGE_DIR, 'include', 'linux', 'kprobes.h'), 'utf8');
const camel = (s: string) => s.replace(/^__int3_/, '').replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
const LAYOUTS: Record<string, Readonly<Record<string, number>>> = {
  kprobe: KprobeLayout,
  jprobe: JprobeLayout,
  kretprobe: KretprobeLayout,
  kretprobe_instance: KretprobeInstanceLayout,
};

describe('KprobeLayout', () => {
  it('should give every offset the header checks with _Static_assert', () => {
    const asserts = [...header.matchAll(/_Static_assert\(offsetof\(struct (\w+), (\w+)\) == (\d+)/g)];
    expect(asserts.length).toBe(22);
    for (const [, struct, member, offset] of asserts) {
      expect(LAYOUTS[struct][camel(member)], `${struct}.${member}`).toBe(Number(offset));
    }
  });

  it('should give every size the header checks with _Static_assert', () => {
    const sizes = [...header.matchAll(/_Static_assert\(sizeof\(struct (\w+)\) == (\d+)/g)];
    expect(sizes.map(([, s, n]) => [s, Number(n)])).toEqual([
      ['kprobe', KprobeLayout.SIZE],
      ['jprobe', JprobeLayout.SIZE],
      ['kretprobe', KretprobeLayout.SIZE],
    ]);
  });
});
