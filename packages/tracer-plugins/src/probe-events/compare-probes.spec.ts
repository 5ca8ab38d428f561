import { describe, expect, it } from 'vitest';
import { checkAppendProbe } from './compare-probes.js';
import { parseProbeCommand } from './parse-probe-command.js';
import { parseProbeLine } from './parse-probe-line.js';
import type { ProbeDefinition, ProbeResolver } from './probe-definition.js';
import { registrationError } from './registration-error.js';
import { resolveSymbols } from './resolve-symbols.js';
import { argvSplit } from './split-command-lines.js';
import { matchesRemoval, traceKprobeShow } from './trace-kprobe-show.js';

const resolver: ProbeResolver = {
  countSymbols: () => 1,
  functionEntry: (s, off) => (s.startsWith('gone:') ? 'unknown' : off === 0 ? 'entry' : 'not-entry'),
  isModuleLoaded: (m) => m !== 'gone',
};

function define(cmd: string): ProbeDefinition {
  const r = parseProbeCommand(argvSplit(cmd.replaceAll('^', '')), resolver);
  if (!r.ok) throw r.error;
  return r.value;
}

describe(checkAppendProbe, () => {
  const existing = [define('p:kprobes/testevent kernel_clone abcd=\\1')];
  it.each([
    ['^r:kprobes/testevent do_exit', 'DIFF_PROBE_TYPE'],
    ['p:kprobes/testevent kernel_clone ^bcd=\\1', 'DIFF_ARG_TYPE'],
    ['p:kprobes/testevent kernel_clone ^abcd=\\1:u8', 'DIFF_ARG_TYPE'],
    ['p:kprobes/testevent kernel_clone ^abcd=\\"foo"', 'DIFF_ARG_TYPE'],
    ['p:kprobes/testevent kernel_clone abcd=\\1 ^x=%ax', 'DIFF_ARG_TYPE'],
    ['^p:kprobes/testevent kernel_clone abcd=\\1', 'SAME_PROBE'],
  ])('should reject %s with %s', (marked, code) => {
    const e = checkAppendProbe(existing, define(marked));
    expect([e?.code, e?.errnoName, e?.position]).toEqual([code, 'EEXIST', marked.indexOf('^')]);
  });
  it('should append a probe with matching arguments elsewhere', () => {
    expect(checkAppendProbe(existing, define('p:kprobes/testevent do_exit abcd=\\2'))).toBeUndefined();
    expect(checkAppendProbe(existing, define('p:kprobes/testevent kernel_clone+4 abcd=%ax:x64'))).toBeUndefined();
  });
});

describe(traceKprobeShow, () => {
  it.each([
    [
      'p:myprobe do_sys_open dfd=%di filename=+0(%si):string',
      'p:kprobes/myprobe do_sys_open dfd=%di filename=+0(%si):string',
    ],
    [
      'p kernel_clone $stack $stack0 +0($stack)',
      'p:kprobes/p_kernel_clone_0 kernel_clone arg1=$stack arg2=$stack0 arg3=+0($stack)',
    ],
    ['p vfs_read%return $retval', 'r:kprobes/r_vfs_read_0 vfs_read arg1=$retval'],
    ['r16:g/e vfs_read', 'r16:g/e vfs_read'],
    ['p:g/e vfs_read+0x10 x=%ax:u8', 'p:g/e vfs_read+16 x=%ax:u8'],
    ['p 0xffffffff81000000', 'p:kprobes/p_0xffffffff81000000 0xffffffff81000000'],
  ])('should read back %s', (cmd, line) => {
    const def = define(cmd);
    expect(traceKprobeShow(def)).toBe(`${line}\n`);
    expect(traceKprobeShow(define(line))).toBe(`${line}\n`);
  });
  it('should show the registered maxactive of a return probe', () => {
    expect(traceKprobeShow(define('r vfs_read'), 20)).toBe('r20:kprobes/r_vfs_read_0 vfs_read\n');
  });
});

describe(matchesRemoval, () => {
  it('should match by name, group, place and leading arguments', () => {
    const def = define('p:grp/ev vfs_read+8 a=%ax b=%bx');
    const rm = (line: string) => {
      const r = parseProbeLine(line, resolver);
      if (!r?.ok || r.value.type !== 'remove') throw new Error(line);
      return matchesRemoval(def, r.value.removal);
    };
    expect(rm('-:ev')).toBe(true);
    expect(rm('-:grp/ev vfs_read+8 a=%ax')).toBe(true);
    expect(rm('-:grp/')).toBe(true);
    expect(rm('-:other/ev')).toBe(false);
    expect(rm('-:ev vfs_read')).toBe(false);
    expect(rm('-:ev vfs_read+8 b=%bx')).toBe(false);
  });
  it('should reject malformed removals without a log entry', () => {
    for (const line of ['-foo', '-:', ' -:ev']) {
      const r = parseProbeLine(line, resolver);
      expect(r?.ok === false && [r.error.code, r.error.errno]).toEqual([undefined, 22]);
    }
    expect(parseProbeLine('   ', resolver)).toBeUndefined();
  });
});

describe(resolveSymbols, () => {
  it('should fail an unknown data symbol with BAD_PROBE_ADDR at the place', () => {
    const r = resolveSymbols(define('p vfs_read @nosuch'), () => undefined);
    expect(r.ok === false && [r.error.code, r.error.errnoName, r.error.position]).toEqual([
      'BAD_PROBE_ADDR',
      'ENOENT',
      2,
    ]);
  });
});

describe(registrationError, () => {
  it('should map registration errnos to log entries at the place', () => {
    const def = define('p vfs_read+3');
    expect(registrationError(def, 'EILSEQ', resolver)?.code).toBe('BAD_INSN_BNDRY');
    expect(registrationError(def, 'ENOENT', resolver)?.code).toBe('BAD_PROBE_ADDR');
    expect(registrationError(def, 'EBUSY', resolver)?.code).toBe('FAIL_REG_PROBE');
    expect(registrationError(def, 'EEXIST', resolver)?.code).toBeUndefined();
    expect(registrationError(define('p gone:func'), 'ENOENT', resolver)).toBeUndefined();
  });
});
