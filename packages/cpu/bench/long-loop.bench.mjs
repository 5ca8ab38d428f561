// @int3/cpu bench: a loop whose body is too long for one region V8 will optimize. N pairs of
// `mov rax, [rbx + d]; add rcx, rax`, then `dec r15; jnz` back, run 20,000 times, six rounds on one
// CPU; prints the last round's MIPS for the compiler and the interpreter. At N = 130 one region would
// be 78 KB of source, past what V8 optimizes (it ran at 5-6 MIPS for good); the block compiler
// compiles it as regions that chain (BlockCompiler's MAX_REGION_SOURCE). Needs a build (`tsc -b`).
// Usage: node bench/long-loop.bench.mjs [N ...] (default 60 130 250)
import { AddressSpace, Cpu, PageFlags, Reg } from '../dist/index.js';

function machine(n, jit) {
  const code = [];
  for (let k = 0; k < n; k++) code.push(0x48, 0x8b, 0x43, (8 * k) & 0x7f, 0x48, 0x01, 0xc1);
  code.push(0x49, 0xff, 0xcf);
  const rel = -(code.length + 6);
  code.push(0x0f, 0x85, rel & 0xff, (rel >> 8) & 0xff, (rel >> 16) & 0xff, (rel >> 24) & 0xff, 0xf4);
  if (code.length > 4096) throw new Error(`N = ${n}: the loop does not fit on one page`);
  const as = new AddressSpace();
  as.map(0x400000n, 4096, PageFlags.Present | PageFlags.Writable);
  as.write(0x400000n, Uint8Array.from(code));
  as.map(0x600000n, 4096, PageFlags.Present | PageFlags.Writable);
  const cpu = new Cpu({ addressSpace: as, jit });
  cpu.setReg(Reg.RBX, 0x600000n);
  return cpu;
}

/** MIPS of the last of six rounds of 20,000 iterations. */
function mips(n, jit) {
  const cpu = machine(n, jit);
  let last = 0;
  for (let round = 0; round < 6; round++) {
    cpu.setReg(Reg.R15, 20000n);
    cpu.rip = 0x400000n;
    const r0 = cpu.retired;
    const t0 = performance.now();
    const r = cpu.run(1e12);
    if (r.reason !== 'hlt') throw new Error(`N = ${n}: stopped with ${r.reason}`);
    last = (cpu.retired - r0) / (performance.now() - t0) / 1000;
  }
  return { mips: last, regions: cpu.jit?.stats.compiled ?? 0 };
}

const sizes = process.argv.slice(2).map(Number);
for (const n of sizes.length > 0 ? sizes : [60, 130, 250]) {
  const c = mips(n, true);
  const i = mips(n, false);
  console.log(
    `long-loop: N = ${n} (${2 * n + 2} instructions a pass): compiler ${c.mips.toFixed(0)} MIPS in ${c.regions} regions, interpreter ${i.mips.toFixed(0)} MIPS — node packages/cpu/bench/long-loop.bench.mjs ${n}`,
  );
}
