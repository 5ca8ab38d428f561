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

describe('probes on a loaded module (kprobe_module.tc)', () => {
  it('should define events on a module function after insmod, keep them over rmmod, and re-arm on reload', () => {
    const { m, fs } = bootTraceFs();
    m.modules.load(helloKo(), 'hello.ko');
    // Step 1: an event on a loaded module's function, without and with names.
    fs.write('kprobe_events', 'p hello:hello_greet');
    expect(fs.ls('events/kprobes')).toContain('p_hello_hello_greet_0');
    fs.write('kprobe_events', 'p:event1 hello:hello_greet');
    expect(fs.ls('events/kprobes')).toEqual(['enable', 'event1']);
    fs.write('kprobe_events', 'p:kprobes1/event1 hello:hello_greet');
    expect(fs.ls('events')).toEqual(['enable', 'kprobes1']);
    // Step 2: enabled while the module goes away: the event stays.
    fs.write('events/kprobes1/event1/enable', '1');
    m.modules.unload('hello');
    expect(fs.read('kprobe_events')).toBe('p:kprobes1/event1 hello:hello_greet\n');
    // Step 3: an event on the unloaded module, enabled before the module is back.
    fs.write('kprobe_events', 'p:event2 hello:hello_greet', { append: true });
    fs.write('events/kprobes/event2/enable', '1');
    m.modules.load(helloKo(), 'hello.ko');
    const lines = traceLines(fs);
    expect(lines.some((l) => / event2: \(hello_greet\+0x0\/0x[0-9a-f]+ \[hello\]\)$/.test(l))).toBe(true);
    expect(lines.some((l) => / event1: \(hello_greet\+0x0/.test(l))).toBe(true);
    expect(fs.read('/sys/kernel/debug/kprobes/list')).not.toContain('[GONE]');
    expect(fs.read('kprobe_events')).toBe('p:kprobes1/event1 hello:hello_greet\np:kprobes/event2 hello:hello_greet\n');
  });
});
