import { describe, expect, it } from 'vitest';
import type { FormatContext } from '../events/trace-event-type.js';
import { eventFormatFile } from './event-format-file.js';
import type { FetchContext } from './fetch-context.js';
import { parseProbeCommand } from './parse-probe-command.js';
import type { ProbeDefinition, ProbeResolver } from './probe-definition.js';
import { ProbeEventType } from './probe-event-type.js';
import { ProbeRecorder } from './probe-recorder.js';
import { resolveSymbols } from './resolve-symbols.js';

const resolver: ProbeResolver = {
  countSymbols: () => 1,
  functionEntry: (_s, off) => (off === 0 ? 'entry' : 'not-entry'),
  isModuleLoaded: () => true,
};

function define(cmd: string): ProbeDefinition {
  const r = parseProbeCommand(cmd.split(' '), resolver);
  if (!r.ok) throw r.error;
  const s = resolveSymbols(r.value, (name) => (name === 'jiffies' ? 0x3000n : undefined));
  if (!s.ok) throw s.error;
  return s.value;
}

/** Kernel memory: 0x1000.. holds "/etc/passwd", 0x2000.. bytes 0..255, 0x3000 a word; the rest faults. */
function memory(addr: bigint, len: number): Uint8Array | undefined {
  const out = new Uint8Array(len);
  for (let i = 0; i < len; i++) {
    const a = Number(addr) + i;
    if (a >= 0x1000 && a < 0x1100) out[i] = '/etc/passwd\0'.charCodeAt(a - 0x1000) || 0;
    else if (a >= 0x2000 && a < 0x2100) out[i] = a - 0x2000;
    else if (a >= 0x3000 && a < 0x3008) out[i] = a === 0x3000 ? 0x10 : 0x20;
    else return undefined;
  }
  return out;
}

const regs: Record<string, bigint> = {
  di: 0xffffff9cn,
  si: 0x1000n,
  dx: 0x8000n,
  cx: 0n,
  ax: (1n << 64n) - 2n,
  sp: 0x2000n,
  bx: 0x2010n,
};

const ctx: FetchContext = {
  readRegister: (n) => regs[n] ?? 0n,
  readKernel: memory,
  readUser: memory,
  kernelStackNth: (n) => 0xffffffff81000100n + BigInt(n),
  comm: 'bash',
  entryArgs: [7n, 8n],
  symbolize: (a) => (a === 0xffffffff81000100n ? 'vfs_read+0x0/0x1a0' : undefined),
};

const fmt: FormatContext = {
  symbolize(a) {
    if (a >= 0xffffffff81000100n && a < 0xffffffff810002a0n)
      return `vfs_read+0x${(a - 0xffffffff81000100n).toString(16)}/0x1a0`;
    if (a >= 0xffffffff81001000n && a < 0xffffffff81001050n)
      return `ksys_read+0x${(a - 0xffffffff81001000n).toString(16)}/0x50`;
    return undefined;
  },
};

function body(
  cmd: string,
  hit = { pid: 42, flags: 0, preemptCount: 1, ip: 0xffffffff81000100n, retIp: 0xffffffff81001010n },
) {
  const def = define(cmd);
  const rec = new ProbeRecorder(def, 1234).record(ctx, hit);
  return { rec, text: new ProbeEventType(1234, def).formatBody(rec, fmt) };
}

describe(ProbeEventType, () => {
  it('should produce the golden format file of the kprobetrace doc example', () => {
    const def = define('p:myprobe do_sys_open dfd=%di filename=+0(%si):string flags=%dx mode=%cx');
    expect(eventFormatFile(new ProbeEventType(1234, def))).toBe(
      'name: myprobe\nID: 1234\nformat:\n' +
        '\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n' +
        '\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n' +
        '\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n' +
        '\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n' +
        '\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n' +
        '\tfield:u64 dfd;\toffset:16;\tsize:8;\tsigned:0;\n' +
        '\tfield:__data_loc char[] filename;\toffset:24;\tsize:4;\tsigned:1;\n' +
        '\tfield:u64 flags;\toffset:28;\tsize:8;\tsigned:0;\n' +
        '\tfield:u64 mode;\toffset:36;\tsize:8;\tsigned:0;\n\n' +
        'print fmt: "(%lx) dfd=0x%Lx filename=\\"%s\\" flags=0x%Lx mode=0x%Lx", REC->__probe_ip, REC->dfd, __get_str(filename), REC->flags, REC->mode\n',
    );
  });

  it('should lay out return probes and arrays as the kernel does', () => {
    const t = new ProbeEventType(7, define('r:rp vfs_read $retval a=+0(%sp):u8[3] s=+0(%si):string[2]'));
    expect(t.fields.map((f) => `${f.ctype} ${f.name}@${f.offset}/${f.size}`)).toEqual([
      'unsigned long __probe_func@8/8',
      'unsigned long __probe_ret_ip@16/8',
      'u64 arg1@24/8',
      'u8[3] a@32/3',
      '__data_loc char[][2] s@35/8',
    ]);
    expect(t.printFmt).toBe(
      '"(%lx <- %lx) arg1=0x%Lx a={%u,%u,%u} s={\\"%s\\",\\"%s\\"}", REC->__probe_func, REC->__probe_ret_ip, ' +
        'REC->arg1, REC->a[0], REC->a[1], REC->a[2], __get_str(s[0]), __get_str(s[1])',
    );
    expect(eventFormatFile(t)).toContain('\tfield:u8 a[3];\toffset:32;\tsize:3;\tsigned:0;\n');
  });

  it('should print the doc example line', () => {
    expect(body('p:myprobe do_sys_open dfd=%di filename=+0(%si):string flags=%dx mode=%cx').text).toBe(
      '(vfs_read+0x0/0x1a0) dfd=0xffffff9c filename="/etc/passwd" flags=0x8000 mode=0x0',
    );
  });

  it('should print return probes with caller and function', () => {
    expect(body('r:myretprobe do_sys_open $retval e=$arg2').text).toBe(
      '(ksys_read+0x10/0x50 <- vfs_read) arg1=0xfffffffffffffffe e=0x8',
    );
  });

  it('should print every type as the kernel does', () => {
    const cmd =
      'p k a=%ax:u8 b=%ax:u16 c=%ax:u32 d=%ax:u64 e=%ax:s8 f=%ax:s16 g=%ax:s32 h=%ax:s64 i=%ax:x8 j=%ax:x16 ' +
      'k=%ax:x32 l=+0x41(%sp):char m=$stack0:symbol n=$stack0:symstr o=$comm p=\\"imm" q=%bx:symbol';
    expect(body(cmd).text).toBe(
      '(vfs_read+0x0/0x1a0) a=254 b=65534 c=4294967294 d=18446744073709551614 e=-2 f=-2 g=-2 h=-2 i=0xfe ' +
        'j=0xfffe k=0xfffffffe l=\'A\' m=vfs_read+0x0/0x1a0 n="vfs_read+0x0/0x1a0" o="bash" p="imm" q=0x2010',
    );
  });

  it('should evaluate bitfields, arrays, nested and symbol dereferences', () => {
    const cmd =
      'p k bf=+0(%sp):b4@4/8 bf2=+0x13(%sp):b3@1/8 bf3=+0(%bx):b12@8/32 arr=+4(%sp):u8[4] sarr=+0(%sp):u16[2] ' +
      'neg=-16(%bx):x32 nest=+0(+0(@0x3000)):x8 sym=@jiffies:x64 w=@jiffies+1:x8';
    expect(body(cmd).text).toBe(
      '(vfs_read+0x0/0x1a0) bf=0 bf2=1 bf3=529 arr={4,5,6,7} sarr={256,770} neg=0x3020100 nest=0x0 ' +
        'sym=0x2020202020202010 w=0x20',
    );
  });

  it('should print (fault) for unreadable strings and zero for unreadable numbers', () => {
    const { rec, text } = body('p k s=+0(%dx):string n=+0(%dx):u32 z=+0(+8(%dx)):x8 u=+u0(%si):ustring');
    expect(text).toBe('(vfs_read+0x0/0x1a0) s=(fault) n=0 z=0x0 u="/etc/passwd"');
    expect(rec.length).toBe(16 + 4 + 4 + 1 + 4 + 12);
  });

  it('should follow string pointers for string arrays', () => {
    regs.r8 = 0x3100n;
    const mem = ctx.readKernel;
    const words = new Map([
      [0x3100n, 0x1000n],
      [0x3108n, 0x1005n],
    ]);
    const custom: FetchContext = {
      ...ctx,
      readKernel: (a, n) => {
        const w = words.get(a);
        if (w === undefined || n !== 8) return mem(a, n);
        const out = new Uint8Array(8);
        new DataView(out.buffer).setBigUint64(0, w, true);
        return out;
      },
    };
    const def = define('p k s=+0(%r8):string[2]');
    const rec = new ProbeRecorder(def, 1).record(custom, { pid: 1, flags: 0, preemptCount: 0, ip: 0n });
    expect(new ProbeEventType(1, def).formatBody(rec, fmt)).toBe('(0) s={"/etc/passwd","passwd"}');
  });
});
