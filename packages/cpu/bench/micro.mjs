// Micro benchmark of the @int3/cpu interpreter: runs hand-assembled loops resembling gcc -O2 output
// and prints MIPS. Runs on dist/ (build first: `tsc -b`). Usage: node bench/micro.mjs [iterations]
import { AddressSpace, Cpu, PageFlags, Reg } from '../dist/index.js';

const CODE = 0xffffffff81000000n;
const DATA = 0xffffffff82000000n;
const STACK = 0xffffffff83000000n;

// Loop body (19 instructions/iteration): loads, stores, lea, alu, movzx, shifts, cmp/jcc, call/ret.
//   mov rcx, N ; mov rsi, DATA ; xor eax,eax ; xor edx,edx
// 1: mov r8,[rsi+rdx*8] ; add rax,r8 ; lea r9,[rax+rax*2] ; xor r9d,ecx ; mov [rsi+rdx*8],r9
//    add edx,1 ; and edx,7 ; movzx r10d,byte [rsi] ; add rax,r10 ; shr r9,3 ; cmp rax,r9 ; jae 2f
//    inc rax
// 2: call f ; sub rcx,1 ; jne 1b ; hlt
// f: push rbx ; mov rbx,rax ; imul rbx,rbx,13 ; pop rbx ; ret
function loopCode(n) {
  const b = [];
  b.push(0x48, 0xc7, 0xc1, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, (n >>> 24) & 0xff);
  b.push(0x48, 0xc7, 0xc6, 0x00, 0x00, 0x00, 0x82); // mov rsi, 0xffffffff82000000 (sign-extended)
  b.push(0x31, 0xc0, 0x31, 0xd2);
  const top = b.length;
  b.push(0x4c, 0x8b, 0x04, 0xd6, 0x4c, 0x01, 0xc0, 0x4c, 0x8d, 0x0c, 0x40, 0x41, 0x31, 0xc9, 0x4c, 0x89, 0x0c, 0xd6);
  b.push(0x83, 0xc2, 0x01, 0x83, 0xe2, 0x07, 0x44, 0x0f, 0xb6, 0x16, 0x4c, 0x01, 0xd0, 0x49, 0xc1, 0xe9, 0x03);
  b.push(0x4c, 0x39, 0xc8, 0x73, 0x03, 0x48, 0xff, 0xc0);
  const call = b.length;
  b.push(0xe8, 0, 0, 0, 0); // patched below
  b.push(0x48, 0x83, 0xe9, 0x01);
  b.push(0x75, (top - (b.length + 2)) & 0xff);
  b.push(0xf4);
  const f = b.length;
  b.push(0x53, 0x48, 0x89, 0xc3, 0x48, 0x6b, 0xdb, 0x0d, 0x5b, 0xc3);
  const rel = f - (call + 5);
  b.splice(call + 1, 4, rel & 0xff, (rel >> 8) & 0xff, 0, 0);
  return Uint8Array.from(b);
}

function machine(code) {
  const kernel = new AddressSpace();
  kernel.map(CODE, 4096, PageFlags.Present);
  kernel.write(CODE, code);
  kernel.map(DATA, 4096, PageFlags.Present | PageFlags.Writable | PageFlags.NoExecute);
  kernel.map(STACK - 8192n, 8192, PageFlags.Present | PageFlags.Writable | PageFlags.NoExecute);
  for (let i = 0; i < 8; i++) kernel.writeU64(DATA + BigInt(i * 8), BigInt(i + 1));
  const cpu = new Cpu({ addressSpace: kernel });
  cpu.rip = CODE;
  cpu.setReg(Reg.RSP, STACK);
  return cpu;
}

const iterations = Number(process.argv[2] ?? 2_000_000);
const code = loopCode(iterations);
let best = 0;
for (let round = 0; round < 5; round++) {
  const cpu = machine(code);
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  const r = cpu.run(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  const ns = Number(process.hrtime.bigint() - t0);
  const cpuUs = process.cpuUsage(c0).user;
  // Wall-clock MIPS, and MIPS per CPU-second (less sensitive to other processes on a shared machine).
  const mips = (cpu.retired / ns) * 1000;
  const cpuMips = cpu.retired / cpuUs;
  best = Math.max(best, cpuMips);
  console.log(
    `round ${round}: ${r.reason} after ${cpu.retired} instructions in ${(ns / 1e6).toFixed(0)} ms: ${mips.toFixed(1)} MIPS wall, ${cpuMips.toFixed(1)} MIPS cpu (rax=0x${cpu.getReg(Reg.RAX).toString(16)})`,
  );
}
console.log(`best: ${best.toFixed(1)} MIPS per CPU-second`);
