import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IMAGE_DIR } from '@int3/kernel';
import { describe, expect, it } from 'vitest';
import { bootTraceFs, traceLines } from './support/tracefs-machine.js';

const helloKo = () => new Uint8Array(readFileSync(join(IMAGE_DIR, 'modules', 'hello.ko')));

describe('probes on module symbols (trace_kprobe_module_callback)', () => {
  it('should register a MOD:SYM probe when its module loads, and again after it is reloaded', () => {
    const { m, fs } = bootTraceFs();
    // Accepted before the module exists, as the kernel does ("might be able to register after target
    // module is loaded").
    fs.write('kprobe_events', 'p:kprobes/greet hello:hello_greet who=+0(%di):string\n', { append: true });
    fs.write('events/kprobes/greet/enable', '1\n');
    m.modules.load(helloKo(), 'hello.ko');
    const first = traceLines(fs).filter((l) => l.includes('greet:'));
    expect(first.length).toBeGreaterThan(0);
    expect(first[0]).toMatch(/greet: \(hello_greet\+0x0\/0x[0-9a-f]+ \[hello\]\) who="/);
    m.modules.unload('hello');
    expect(fs.read('/sys/kernel/debug/kprobes/list')).toMatch(/hello_greet\+0x0 {2}hello \[GONE\]/);
    fs.write('trace', '\n');
    m.modules.load(helloKo(), 'hello.ko');
    expect(traceLines(fs).filter((l) => l.includes('greet:')).length).toBe(first.length);
    expect(fs.read('/sys/kernel/debug/kprobes/list')).not.toContain('[GONE]');
  });
});
