import { Reg } from '@int3/cpu';
import { Machine, type PtRegs, readSampleImage, sampleProgram, type TaskEvent } from '@int3/kernel';
import { type KprobeEvent, Kprobes } from '@int3/kprobes';
import { describe, expect, it } from 'vitest';
import { globMatch } from '../filter/glob-match.js';
import { machineTracerView } from './machine-tracer-view.js';

const image = readSampleImage();

/** Boots two CPUs, runs `cat /etc/motd`, and calls `atHit` inside its do_sys_open kprobe hit. */
function atDoSysOpen(atHit: (view: ReturnType<typeof machineTracerView>, regs: PtRegs, m: Machine) => void) {
  const m = Machine.boot({ image, cpus: 2, programs: sampleProgram });
  const view = machineTracerView(m, Kprobes.init(m));
  let hits = 0;
  const kp = {
    symbolName: 'do_sys_open',
    preHandler: (_p: unknown, regs: PtRegs) => {
      if (hits++ === 0) atHit(view, regs, m);
      return 0;
    },
  };
  view.kprobes.registerKprobe(kp);
  const t = m.spawn(['cat', '/etc/motd']);
  m.run({ until: () => t.exited });
  view.kprobes.unregisterKprobe(kp);
  return { m, view, hits };
}

describe(machineTracerView, () => {
  it("should give a task's task_struct address, each CPU's interrupted registers, and round timers", () => {
    const m = Machine.boot({ image, cpus: 2, programs: sampleProgram });
    const view = machineTracerView(m, Kprobes.init(m));
    const t = m.spawn(['cat', '/etc/motd']);
    let rounds = 0;
    const seen: bigint[] = [];
    view.kprobes.registerKprobe({
      symbolName: 'vfs_read',
      preHandler: (_p, regs) => {
        seen.push(view.tasks.current(view.regs.smpProcessorId(regs))?.guestTask ?? 0n);
        return 0;
      },
    });
    const off = view.timers.onRoundBoundary(() => {
      rounds++;
      for (let cpu = 0; cpu < 2; cpu++) expect(view.regs.get(view.regs.irqRegs(cpu), 'ip')).toBe(m.cpus[cpu].rip);
    });
    m.run({ until: () => t.exited });
    off();
    expect(rounds).toBeGreaterThan(0);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((g) => g === t.guestTask && g > 0n)).toBe(true);
  });

  it('should offer the view and nothing of the machine or kprobes objects', () => {
    const m = Machine.boot({ image, cpus: 2, programs: sampleProgram });
    const k = Kprobes.init(m);
    const view = machineTracerView(m, k);
    expect(Object.keys(view).sort()).toEqual(
      [
        'clock',
        'countFunctions',
        'debugfs',
        'isFunction',
        'isModuleLoaded',
        'kprobes',
        'memory',
        'nrCpus',
        'onModuleComing',
        'pageOf',
        'printk',
        'regs',
        'symbols',
        'tasks',
        'timers',
      ].sort(),
    );
    expect(view.nrCpus).toBe(2);
    expect(Object.values(view)).not.toContain(m);
    expect(Object.values(view)).not.toContain(k);
    expect(Object.isFrozen(view.kprobes)).toBe(true);
    expect(view.debugfs.enabled()).toBe('1\n');
    expect(view.debugfs.optimization).toBe(true);
    view.debugfs.setOptimization(false);
    expect(view.debugfs.optimization).toBe(k.optimization.enabled);
    expect(view.debugfs.optimization).toBe(false);
  });

  it('should read the hit CPU, pt_regs members, raw halves and arguments from the handler regs', () => {
    let seen: Record<string, unknown> = {};
    const { hits } = atDoSysOpen((view, regs) => {
      const out = new Uint32Array(2);
      view.regs.raw(regs, Reg.RSI, out);
      seen = {
        cpu: view.regs.smpProcessorId(regs),
        cpuOfRegs: regs.cpu.id,
        di: view.regs.get(regs, 'di'),
        cpuDi: regs.cpu.getReg(Reg.RDI),
        halves: (BigInt(out[1]) << 32n) | BigInt(out[0]),
        si: view.regs.get(regs, 'si'),
        arg1: view.regs.argument(regs, 1),
        ip: view.regs.get(regs, 'ip'),
        rip: regs.cpu.rip,
      };
    });
    expect(hits).toBeGreaterThan(0);
    expect(seen.cpu).toBe(seen.cpuOfRegs);
    expect(seen.di).toBe(seen.cpuDi);
    expect(seen.halves).toBe(seen.si);
    expect(seen.arg1).toBe(seen.si);
    expect(seen.ip).toBe(seen.rip);
  });

  it('should read guest memory of the hit CPU without faulting: strings, words, bytes; undefined when unmapped', () => {
    let seen: Record<string, unknown> = {};
    atDoSysOpen((view, regs, m) => {
      const cpu = view.regs.smpProcessorId(regs);
      const name = view.regs.get(regs, 'si');
      const space = regs.cpu.addressSpace;
      const sym = m.kallsyms.lookupName('do_sys_open')!.address;
      seen = {
        filename: view.memory.readString(cpu, name, 256),
        short: view.memory.readString(cpu, name, 4),
        bytes: view.memory.read(cpu, name, 4),
        u8: view.memory.readU8(cpu, sym),
        u16: view.memory.readU16(cpu, sym),
        u32: view.memory.readU32(cpu, sym),
        u64: view.memory.readU64(cpu, sym),
        want: space.read(sym, 8),
        unmapped: [view.memory.readU64(cpu, 0n), view.memory.read(cpu, 0x10n, 1), view.memory.readString(cpu, 0n, 8)],
      };
    });
    expect(seen.filename).toBe('/etc/motd');
    expect(seen.short).toBe('/etc');
    expect(seen.bytes).toEqual(new TextEncoder().encode('/etc'));
    const want = seen.want as Uint8Array;
    const dv = new DataView(want.buffer, want.byteOffset, 8);
    expect([seen.u8, seen.u16, seen.u32, seen.u64]).toEqual([
      want[0],
      dv.getUint16(0, true),
      dv.getUint32(0, true),
      dv.getBigUint64(0, true),
    ]);
    expect(seen.unmapped).toEqual([undefined, undefined, undefined]);
  });

  it('should refuse a read length that is not a small whole number', () => {
    const m = Machine.boot({ image, cpus: 1, programs: sampleProgram });
    const view = machineTracerView(m, Kprobes.init(m));
    expect(() => view.memory.read(0, 0n, -1)).toThrow(RangeError);
    expect(() => view.memory.read(0, 0n, 2 ** 21)).toThrow(/length must be an integer from 0 to 1048576/);
  });

  it('should give the task running on the hit CPU, the same object while it runs, and the task events', () => {
    const comms: (string | undefined)[] = [];
    const same: boolean[] = [];
    const m = Machine.boot({ image, cpus: 1, programs: sampleProgram });
    const view = machineTracerView(m, Kprobes.init(m));
    const events: TaskEvent['type'][] = [];
    view.tasks.events$.subscribe((e) => events.push(e.type));
    view.kprobes.registerKprobe({
      symbolName: 'do_sys_open',
      preHandler: (_p, regs) => {
        const cpu = view.regs.smpProcessorId(regs);
        const task = view.tasks.current(cpu);
        comms.push(task?.comm);
        same.push(task === view.tasks.current(cpu) && task?.cpu === cpu && task.tgid > 0 && task.pid > 0);
        return 0;
      },
    });
    const t = m.spawn(['cat', '/etc/motd']);
    m.run({ until: () => t.exited });
    expect(comms[0]).toBe('cat');
    expect(same.every(Boolean)).toBe(true);
    expect(events).toContain('task:exited');
  });

  it('should look symbols up by address and name, format %pS, and list functions by glob', () => {
    const m = Machine.boot({ image, cpus: 1, programs: sampleProgram });
    const view = machineTracerView(m, Kprobes.init(m));
    const at = m.kallsyms.lookupName('vfs_read')!.address;
    expect(view.symbols.lookupName('vfs_read')).toBe(at);
    expect(view.symbols.lookupName('no_such_symbol')).toBeUndefined();
    expect(view.symbols.lookup(at + 1n)).toMatchObject({ sym: { name: 'vfs_read' }, offset: 1 });
    expect(view.symbols.format(at + 1n)).toMatch(/^vfs_read\+0x1\/0x[0-9a-f]+$/);
    const vfs = view.symbols.functions('vfs_*');
    expect(vfs).toContain('vfs_read');
    expect(new Set(vfs).size).toBe(vfs.length);
    const enc = new TextEncoder();
    for (const name of vfs) {
      expect(globMatch(enc.encode('vfs_*'), enc.encode(name), 0, name.length)).toBe(true);
      expect(view.isFunction(name)).toBe(true);
    }
    expect(view.countFunctions('vfs_read')).toBe(1);
    expect(view.isFunction('sys_call_table')).toBe(false);
  });

  it('should register, enable and disable probes through the kprobes API and report on its stream', () => {
    const m = Machine.boot({ image, cpus: 1, programs: sampleProgram });
    const view = machineTracerView(m, Kprobes.init(m));
    const types = new Set<KprobeEvent['type']>();
    view.kprobes.events$.subscribe((e) => types.add(e.type));
    let hits = 0;
    const kp = {
      symbolName: 'do_sys_open',
      preHandler: () => {
        hits++;
        return 0;
      },
    };
    view.kprobes.registerKprobe(kp);
    view.kprobes.disableKprobe(kp);
    let t = m.spawn(['cat', '/etc/motd']);
    m.run({ until: () => t.exited });
    expect(hits).toBe(0);
    view.kprobes.enableKprobe(kp);
    t = m.spawn(['cat', '/etc/motd']);
    m.run({ until: () => t.exited });
    expect(hits).toBeGreaterThan(0);
    view.kprobes.unregisterKprobe(kp);
    expect([...types]).toEqual(expect.arrayContaining(['kprobe:registered', 'kprobe:unregistered']));
  });
});
