import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IMAGE_DIR, ModuleState } from '@int3/kernel';
import { describe, expect, it } from 'vitest';
import { KprobeStatus } from '../src/core/kprobe.js';
import { KprobeError } from '../src/kprobe-error.js';
import { kprobesCore } from '../src/kprobes.js';
import { addr, bootWithKprobes, run } from './support/machine.js';

const helloKo = () => new Uint8Array(readFileSync(join(IMAGE_DIR, 'modules', 'hello.ko')));

describe('kprobes on 4 CPUs', () => {
  it('should hit concurrently on several CPUs with each CPU`s state its own', () => {
    const { m, k } = bootWithKprobes(4, 500);
    const cpus = new Set<number>();
    const violations: string[] = [];
    for (const symbolName of ['do_syscall_64', 'vfs_read', 'vfs_write', 'tcp_sendmsg']) {
      const at = addr(m, symbolName);
      k.registerKprobe({
        symbolName,
        preHandler: (_p, regs) => {
          const cpu = regs.cpu.id;
          cpus.add(cpu);
          const kcb = kprobesCore(k).kcb[cpu];
          if (kcb.current?.addr !== at || kcb.status !== KprobeStatus.HIT_ACTIVE)
            violations.push(`cpu${cpu} ${symbolName}`);
          return 0;
        },
        postHandler: (_p, regs) => {
          const kcb = kprobesCore(k).kcb[regs.cpu.id];
          if (kcb.current?.addr !== at || kcb.status !== KprobeStatus.HIT_SSDONE)
            violations.push(`post cpu${regs.cpu.id}`);
        },
      });
    }
    const out = run(m, ['fork', '4'], ['net', '3'], ['cat', '/etc/motd'], ['dd', '2']);
    expect(out).toContain('fork: reaped 4 children');
    expect(out).toMatch(/net: received 3 messages/);
    expect(violations).toEqual([]);
    expect(cpus.size).toBeGreaterThanOrEqual(3);
    for (const kcb of kprobesCore(k).kcb) expect(kcb.current).toBeUndefined();
  });
});

describe('probes in module text', () => {
  it('should mark a module`s probes [GONE] when it is unloaded, without touching the freed text', () => {
    const { m, k } = bootWithKprobes();
    m.modules.load(helloKo(), 'hello.ko');
    const target = m.kallsyms
      .all()
      .find((s) => s.module === 'hello' && s.type.toLowerCase() === 't' && s.name !== 'init_module')!;
    const kp = { addr: target.address };
    k.registerKprobe(kp);
    const px = target.address.toString(16).padStart(16, '0');
    expect(k.debugfs.list()).toContain(`${px}  k  ${target.name}+0x0  hello \n`);
    m.modules.unload('hello');
    expect(k.debugfs.list()).toContain(`${px}  k  ${target.name}+0x0  hello [GONE]\n`);
    expect(() => k.enableKprobe(kp)).toThrow(KprobeError);
    k.unregisterKprobe(kp);
    expect(k.debugfs.list()).not.toContain(target.name);
  });

  it('should refuse a probe on a module that is going away with ENOENT', () => {
    const { m, k } = bootWithKprobes();
    m.modules.load(helloKo(), 'hello.ko');
    const target = m.kallsyms.all().find((s) => s.module === 'hello' && s.type.toLowerCase() === 't')!;
    let code = 'not called';
    m.modules.onModule((state) => {
      if (state !== ModuleState.GOING) return;
      try {
        k.registerKprobe({ addr: target.address });
        code = 'ok';
      } catch (e) {
        code = (e as KprobeError).code;
      }
    });
    m.modules.unload('hello');
    expect(code).toBe('ENOENT');
  });
});
