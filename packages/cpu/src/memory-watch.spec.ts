import { describe, expect, it } from 'vitest';
import { Reg } from './reg.js';
import { TEST_LAYOUT, testMachine } from './test-machine.fixture.js';

// mov rbx, 0x600010; mov rax, [rbx]; mov [rbx+8], eax; add byte [rbx+0x10], 1; push rax; pop rcx;
// then the same loads twice in a loop (a TLB hit would skip the slow path).
const CODE = [
  0x48,
  0xc7,
  0xc3,
  0x10,
  0x00,
  0x60,
  0x00, // mov rbx, 0x600010
  0xb9,
  0x02,
  0x00,
  0x00,
  0x00, //              mov ecx, 2
  0x48,
  0x8b,
  0x03, //                          loop: mov rax, [rbx]
  0x89,
  0x43,
  0x08, //                          mov [rbx+8], eax
  0x80,
  0x43,
  0x10,
  0x01, //                    add byte [rbx+0x10], 1
  0x50, //                                      push rax
  0x5a, //                                      pop rdx
  0xff,
  0xc9, //                                dec ecx
  0x75,
  0xf0, //                                jnz loop
];

/** The accesses a memory watch on the data page saw, as `r8@10` (size and offset in the page). */
function watched(watchPage: bigint) {
  const m = testMachine(CODE);
  const seen: string[] = [];
  m.cpu.memoryWatch = {
    pageLo: Int32Array.of(Number(watchPage & 0xffffffffn) | 0),
    pageHi: Int32Array.of(0),
    access: (lo, _hi, size, write) => seen.push(`${write ? 'w' : 'r'}${size}@${(lo & 0xfff).toString(16)}`),
  };
  m.cpu.flushTlb();
  expect(m.run().reason).toBe('hlt');
  return { seen, m };
}

describe('Cpu.memoryWatch', () => {
  it('should see every load and store of a watched page, TLB or not, and nothing of other pages', () => {
    const { seen, m } = watched(TEST_LAYOUT.data);
    const once = ['r8@10', 'w4@18', 'r1@20', 'w1@20'];
    expect(seen).toEqual([...once, ...once]);
    // The program ran as without a watch.
    expect(m.cpu.getReg(Reg.RCX)).toBe(0n);
    expect(m.as.readU8(TEST_LAYOUT.data + 0x20n)).toBe(2);
    const stack = watched(TEST_LAYOUT.stackTop - 4096n);
    expect(stack.seen).toEqual(['w8@ff8', 'r8@ff8', 'w8@ff8', 'r8@ff8']);
  });

  it('should cost nothing and see nothing when unset', () => {
    const m = testMachine(CODE);
    expect(m.cpu.memoryWatch).toBeNull();
    expect(m.run().reason).toBe('hlt');
    expect(m.as.readU8(TEST_LAYOUT.data + 0x20n)).toBe(2);
  });
});
