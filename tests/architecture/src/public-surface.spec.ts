import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { boundedSurfaces, MAX_PUBLIC_MEMBERS, publicMembers } from './public-surface.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

describe(publicMembers, () => {
  it('should count fields, parameter properties, accessors once, methods and statics, and nothing private', () => {
    const source = `
      export class Box {
        readonly a = 1;
        b: number;
        private c = 2;
        protected d = 3;
        #e = 4;
        static make(): Box { return new Box(0); }
        private static hidden(): void {}
        constructor(readonly f: number, private readonly g = 0, h = 1) { this.b = h; }
        get i(): number { return 1; }
        set i(v: number) {}
        j(): void {}
        private k(): void {}
      }`;
    expect(publicMembers(source, 'Box')).toEqual(['a', 'b', 'f', 'i', 'j', 'static make']);
  });
});

describe('the composition roots', () => {
  it(`should each have at most ${MAX_PUBLIC_MEMBERS} public members (Machine, Kprobes)`, () => {
    for (const { name, members } of boundedSurfaces(ROOT)) {
      expect(members.length, `${name}: ${members.join(', ')}`).toBeLessThanOrEqual(MAX_PUBLIC_MEMBERS);
    }
  });
});
