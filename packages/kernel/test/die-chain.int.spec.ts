import { disassemble, ExceptionVector, Selector } from '@int3/cpu';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DieEvent } from '../src/events/kernel-event.js';
import { Machine } from '../src/machine/machine.js';
import { readSampleImage, sampleProgram } from '../src/sample-image.js';
import { type DieArgs, DieVal, NotifyResult, type NotifyResultValue } from '../src/traps/die-chain.js';
import type { PtRegs } from '../src/traps/pt-regs.js';

const image = readSampleImage();
const MOTD = /^Welcome to int3\.\n.*\n.*\n$/;

/** A machine with a "debugger breakpoint" (0xcc) on the first byte of `fn` (`push %rbp`, 0x55). */
function withBreakpoint(fn = 'vfs_read', cpus = 2) {
  const m = Machine.boot({ image, cpus, programs: sampleProgram });
  const address = m.kallsyms.lookupName(fn)!.address;
  const original = m.space.read(address, 1);
  expect(original).toEqual(new Uint8Array([0x55]));
  m.kernel.memory.textPoke(address, new Uint8Array([0xcc]));
  const dies: DieEvent[] = [];
  m.streams.dies$.subscribe((e) => dies.push(e));
  return { m, address, original, dies };
}

function runCat(m: Machine) {
  const task = m.spawn(['cat', '/etc/motd']);
  const outcome = m.run({ until: () => task.exited });
  return { task, outcome, out: m.console.map((c) => c.text).join('') };
}

/** The breakpoint handler a debugger uses: put the byte back, re-execute the instruction. */
function restoreAndRewind(m: Machine, address: bigint, original: Uint8Array, a: DieArgs<PtRegs>): NotifyResultValue {
  if (a.val !== DieVal.INT3 || a.regs.ip !== address + 1n) return NotifyResult.DONE;
  m.kernel.memory.textPoke(address, original);
  a.regs.ip -= 1n;
  return NotifyResult.STOP;
}

/** Keeps the breakpoint armed: emulates the `push %rbp` it replaced and resumes after it. */
function emulatePushRbp(m: Machine, address: bigint, a: DieArgs<PtRegs>): NotifyResultValue {
  if (a.val !== DieVal.INT3 || a.regs.ip !== address + 1n) return NotifyResult.DONE;
  a.regs.sp -= 8n;
  m.space.writeU64(a.regs.sp, a.regs.get('bp'));
  return NotifyResult.STOP;
}

describe('DieChain on a running machine', () => {
  it('should report DIE_INT3 for a breakpoint in kernel text with the trap frame of the CPU', () => {
    const { m, address, original, dies } = withBreakpoint();
    const seen: string[] = [];
    m.kernel.dieChain.register('debugger', 0, (a) => {
      if (a.val === DieVal.INT3) {
        seen.push(
          `${a.str} trapnr=${a.trapnr} cs=${a.regs.get('cs')} ip=${m.kallsyms.format(a.regs.ip)} task=${m.sched.current[a.cpu]?.comm}`,
        );
      }
      return restoreAndRewind(m, address, original, a);
    });
    const { task, outcome, out } = runCat(m);
    expect(outcome).toEqual({ reason: 'done' });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatch(
      new RegExp(
        `^int3 trapnr=${ExceptionVector.Breakpoint} cs=${Selector.KERNEL_CS} ip=vfs_read\\+0x1/0x[0-9a-f]+ task=cat$`,
      ),
    );
    expect(dies.map((d) => [d.val, d.stopped])).toEqual([['DIE_INT3', true]]);
    expect(out).toMatch(MOTD);
    expect(task.exitCode).toBe(0);
    expect(m.space.read(address, 1)).toEqual(original);
    expect(m.printk.dmesg()).not.toMatch(/Oops|BUG|int3: [0-9a-f]{4} \[#/);
  });

  // Known bug (reported): TrapRouter.handle emits die:notified with the rip as the notifiers left it,
  // so a breakpoint handler's rewind shows as the breakpoint address instead of the trapping rip.
  it('should record the trapping rip in die:notified, not the rip a notifier rewound to', () => {
    const { m, address, original, dies } = withBreakpoint();
    m.kernel.dieChain.register('debugger', 0, (a) => restoreAndRewind(m, address, original, a));
    runCat(m);
    expect(dies.map((d) => d.rip)).toEqual([address + 1n]);
  });

  it('should let a notifier keep the breakpoint armed and see every call', () => {
    const { m, address } = withBreakpoint();
    let hits = 0;
    m.kernel.dieChain.register('counter', 0, (a) => {
      const r = emulatePushRbp(m, address, a);
      if (r === NotifyResult.STOP) hits++;
      return r;
    });
    const { task, out } = runCat(m);
    expect(out).toMatch(MOTD);
    expect(task.exitCode).toBe(0);
    // cat reads until EOF: at least one read with data and the read returning 0.
    expect(hits).toBeGreaterThanOrEqual(2);
    const again = runCat(m);
    expect(again.task.exitCode).toBe(0);
    expect(hits).toBeGreaterThanOrEqual(4);
  });

  it('should call notifiers in descending priority, whatever the registration order', () => {
    const { m, address, original } = withBreakpoint();
    const order: string[] = [];
    const note = (name: string) => (a: DieArgs<PtRegs>) => {
      if (a.val === DieVal.INT3) order.push(name);
      return NotifyResult.DONE;
    };
    m.kernel.dieChain.register('mid', 0, note('mid'));
    m.kernel.dieChain.register('low', -5, (a) => {
      note('low')(a);
      return restoreAndRewind(m, address, original, a);
    });
    m.kernel.dieChain.register('high', 10, note('high'));
    m.kernel.dieChain.register('mid2', 0, note('mid2'));
    expect(m.kernel.dieChain.names()).toEqual(['high', 'mid', 'mid2', 'low']);
    expect(runCat(m).task.exitCode).toBe(0);
    expect(order).toEqual(['high', 'mid', 'mid2', 'low']);
  });

  it('should hide the event from lower-priority notifiers once one returns NOTIFY_STOP', () => {
    const { m, address, original, dies } = withBreakpoint();
    const low: number[] = [];
    m.kernel.dieChain.register('low', 0, (a) => {
      low.push(a.val);
      return NotifyResult.OK;
    });
    m.kernel.dieChain.register('high', 100, (a) => restoreAndRewind(m, address, original, a));
    const { task, out } = runCat(m);
    expect(task.exitCode).toBe(0);
    expect(out).toMatch(MOTD);
    expect(low).not.toContain(DieVal.INT3);
    expect(dies.filter((d) => d.val === 'DIE_INT3').map((d) => d.stopped)).toEqual([true]);
  });

  it('should allow a notifier to unregister itself mid-run, the rest of that walk still running', () => {
    const { m, address } = withBreakpoint();
    const seen: string[] = [];
    const off = m.kernel.dieChain.register('once', 10, (a) => {
      if (a.val !== DieVal.INT3) return NotifyResult.DONE;
      seen.push('once');
      off();
      return NotifyResult.DONE;
    });
    m.kernel.dieChain.register('counter', 0, (a) => {
      const r = emulatePushRbp(m, address, a);
      if (r === NotifyResult.STOP) seen.push('counter');
      return r;
    });
    const { task } = runCat(m);
    expect(task.exitCode).toBe(0);
    expect(seen.slice(0, 2)).toEqual(['once', 'counter']);
    expect(seen.filter((s) => s === 'once')).toHaveLength(1);
    expect(seen.filter((s) => s === 'counter').length).toBeGreaterThanOrEqual(2);
    expect(m.kernel.dieChain.names()).toEqual(['counter']);
  });

  it('should oops the task once the only handler unregistered itself, and go on', () => {
    const { m, address, original } = withBreakpoint();
    let hits = 0;
    const off = m.kernel.dieChain.register('one-shot', 0, (a) => {
      const r = emulatePushRbp(m, address, a);
      if (r === NotifyResult.STOP) {
        hits++;
        off();
      }
      return r;
    });
    const { task, outcome } = runCat(m);
    expect(outcome).toEqual({ reason: 'done' });
    expect(hits).toBe(1);
    // The second vfs_read hit an int3 nobody claims.
    expect(task.killedBy).toBe(9);
    expect(m.printk.dmesg()).toMatch(/int3: 0000 \[#1\] SMP/);
    m.kernel.memory.textPoke(address, original);
    const after = runCat(m);
    expect(after.task.exitCode).toBe(0);
  });

  it('should oops a kernel-mode int3 nobody claims: the task dies, the machine goes on', () => {
    const { m, address, original, dies } = withBreakpoint('vfs_read', 1);
    const { task, outcome, out } = runCat(m);
    expect(outcome).toEqual({ reason: 'done' });
    expect(task.killedBy).toBe(9);
    expect(out).toBe('');
    const dmesg = m.printk.dmesg();
    expect(dmesg).toMatch(/int3: 0000 \[#1\] SMP/);
    expect(dmesg).toMatch(/RIP: 0010:vfs_read\+0x1\/0x[0-9a-f]+/);
    expect(dmesg).toContain('Comm: cat');
    expect(dies.map((d) => [d.val, d.stopped])).toEqual([['DIE_INT3', false]]);
    expect(m.panicked).toBeUndefined();
    m.kernel.memory.textPoke(address, original);
    const next = m.spawn(['hello']);
    expect(m.run({ until: () => next.exited })).toEqual({ reason: 'done' });
    expect(next.exitCode).toBe(0);
  });

  it('should report DIE_PAGE_FAULT for a bad user pointer in kernel mode before the exception-table fixup', () => {
    const m = Machine.boot({ image, cpus: 2, programs: sampleProgram });
    const faults: { cs: number; ip: bigint; err: number; fixup: boolean; sym: string }[] = [];
    m.kernel.dieChain.register('pf-watch', 0, (a) => {
      if (a.val === DieVal.PAGE_FAULT) {
        expect(a.trapnr).toBe(ExceptionVector.PageFault);
        faults.push({
          cs: Number(a.regs.get('cs')),
          ip: a.regs.ip,
          err: a.err,
          fixup: m.kernel.exTable.has(a.regs.ip),
          sym: m.kallsyms.lookup(a.regs.ip)?.sym.name ?? 'user',
        });
      }
      return NotifyResult.DONE;
    });
    const task = m.spawn(['fault']);
    expect(m.run({ until: () => task.exited })).toEqual({ reason: 'done' });
    expect(m.console.map((c) => c.text).join('')).toContain('write(1, 0x10, 4) = -14');
    expect(task.killedBy).toBe(11);
    // First the kernel's read of the user buffer (error 0: supervisor read of a non-present page),
    // notified while regs.ip is still the faulting instruction the fixup will replace; then the
    // user-mode store (error 6: user write), which becomes SIGSEGV.
    expect(faults.map((f) => [f.cs, f.err, f.fixup, f.sym])).toEqual([
      [Selector.KERNEL_CS, 0, true, 'copy_user_generic'],
      [Selector.USER_CS, 6, false, 'user'],
    ]);
    expect(m.printk.dmesg()).not.toMatch(/Oops|BUG/);
  });

  it('should let a NOTIFY_STOP on a user-mode page fault suppress the SIGSEGV', () => {
    const m = Machine.boot({ image, cpus: 1, programs: sampleProgram });
    const skipped: string[] = [];
    m.kernel.dieChain.register('skip-store', 0, (a) => {
      if (a.val !== DieVal.PAGE_FAULT || a.regs.get('cs') !== BigInt(Selector.USER_CS)) return NotifyResult.DONE;
      // Step over the faulting store, as a user-space fixup handler would.
      const [insn] = disassemble(m.cpus[a.cpu].addressSpace.read(a.regs.ip, 15), a.regs.ip, 1);
      skipped.push(insn.text);
      a.regs.ip += BigInt(insn.length);
      return NotifyResult.STOP;
    });
    const task = m.spawn(['fault']);
    expect(m.run({ until: () => task.exited })).toEqual({ reason: 'done' });
    expect(skipped).toHaveLength(1);
    expect(skipped[0]).toMatch(/^mov/);
    expect(task.killedBy).toBeUndefined();
    expect(task.exitCode).toBe(1 << 8);
    expect(m.console.map((c) => c.text).join('')).toContain('fault: still alive?');
    expect(m.printk.dmesg()).not.toContain('segfault');
  });

  it('should keep breakpoints on hot kernel functions transparent under any interleaving', () => {
    const hot = [
      'kmalloc',
      'kfree',
      'schedule',
      'do_syscall_64',
      'vfs_read',
      'vfs_write',
      'tcp_sendmsg',
      'kernel_clone',
      'do_exit',
      'dput',
      '__blockdev_direct_IO',
    ];
    const workloads = [['net', '2'], ['fork', '3'], ['dd', '2'], ['cat', '/etc/motd'], ['fault']];
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.oneof(fc.integer({ min: 1, max: 30 }), fc.integer({ min: 1, max: 20_000 })),
        fc.subarray(hot, { minLength: 1 }),
        (cpus, quantum, probed) => {
          const m = Machine.boot({ image, cpus, quantum, programs: sampleProgram });
          const armed = new Set<bigint>();
          for (const fn of probed) {
            const address = m.kallsyms.lookupName(fn)!.address;
            m.kernel.memory.textPoke(address, new Uint8Array([0xcc]));
            armed.add(address + 1n);
          }
          const hits = new Set<bigint>();
          m.kernel.dieChain.register('breakpoints', 0, (a) => {
            if (!armed.has(a.regs.ip)) return NotifyResult.DONE;
            hits.add(a.regs.ip);
            return emulatePushRbp(m, a.regs.ip - 1n, a);
          });
          const tasks = workloads.map((w) => m.spawn(w));
          const outcome = m.run({
            until: () => tasks.every((t) => t.exited) && m.sched.tasks.size === 0,
            deadlineNs: m.clock(0) + 2e9,
          });
          const where = `${JSON.stringify({ cpus, quantum, probed })}\n${m.printk.dmesg()}`;
          expect(outcome, where).toEqual({ reason: 'done' });
          expect(
            tasks.map((t) => t.exitCode),
            where,
          ).toEqual([0, 0, 0, 0, 11]);
          expect(m.printk.dmesg()).not.toMatch(/Oops|BUG/);
          expect(hits.size, where).toBe(armed.size);
          expect(m.space.readU32(m.kernel.image.symbols.kernel_flag)).toBe(0);
        },
      ),
      { numRuns: Number(process.env.INT3_FUZZ_RUNS ?? 8) },
    );
  });
});
