// Reliability (issue 13 §4): a stop signal stops every command, not only the runs of trace, record,
// replay and tracefs: what the command did is printed, and it exits 128 + the signal's number.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { int3, lines, startInt3 } from '../int3.js';

vi.setConfig({ testTimeout: 240_000 });

const dir = mkdtempSync(join(tmpdir(), 'int3-signals-all-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SIGNO = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;

/**
 * True once int3's stop-signal handlers are installed in process `pid`: it installs SIGINT's,
 * SIGTERM's and SIGHUP's together, SIGHUP's last, and SIGHUP is the one node does not catch by itself
 * (it catches SIGINT and SIGTERM from its start), so /proc/PID/status's SigCgt shows it.
 */
function handlesSignals(pid: number): boolean {
  try {
    const mask = /^SigCgt:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return mask !== undefined && (BigInt(`0x${mask}`) >> BigInt(SIGNO.SIGHUP - 1)) % 2n === 1n;
  } catch {
    return false;
  }
}

/**
 * Starts `int3 args`, sends `signal` once int3 handles it (from its first line on, while it still
 * loads the emulator: the command then starts with the signal pending), and waits for the end.
 */
async function signalled(args: string[], signal: keyof typeof SIGNO) {
  const p = startInt3(args);
  await new Promise<void>((resolve) => {
    const poll = setInterval(() => {
      if (handlesSignals(p.child.pid!) || p.child.exitCode !== null) {
        clearInterval(poll);
        resolve();
      }
    }, 5);
  });
  p.child.kill(signal);
  return p.done;
}

describe('a stop signal during any command', () => {
  it('should stop call in a function that never returns within a slice, naming where it stopped, exit 130', async () => {
    const source = join(dir, 'spin.c');
    writeFileSync(
      source,
      'unsigned long spin(unsigned long i) { for (;;) __asm__ volatile("" : "+r"(i)); }\nvoid _start(void) {}\n',
    );
    const image = join(dir, 'spin.elf');
    execFileSync('gcc', [
      '-O1',
      '-ffreestanding',
      '-fno-pic',
      '-mcmodel=kernel',
      '-nostdlib',
      '-static',
      '-Wl,-Ttext=0xffffffff90000000',
      '-Wl,--build-id=none',
      '-o',
      image,
      source,
    ]);
    const r = await signalled(['call', '--image', image, '--max-insns', '9e15', 'spin', '1'], 'SIGINT');
    expect(r.signal).toBeNull();
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^int3: interrupted \(Ctrl-C\) after \d+ instructions of spin, at spin\+0x[0-9a-f]+\/0x[0-9a-f]+ \(0x[0-9a-f]+\)\n$/,
    );
    expect(r.status).toBe(130);
  });

  it('should finish syms and disasm (short work), print all of it, then exit 143 and 129', async () => {
    const all = int3(['syms', 'sys_*']);
    expect(all.status).toBe(0);
    const syms = await signalled(['syms', 'sys_*'], 'SIGTERM');
    expect(syms.stdout).toBe(all.stdout);
    expect(syms.stderr).toBe('int3: interrupted (SIGTERM) after the command had done its work; printed all of it\n');
    expect(syms.status).toBe(143);
    const disasm = await signalled(['disasm', 'do_sys_open'], 'SIGHUP');
    expect(lines(disasm.stdout)[0]).toMatch(/^[0-9a-f]+ <do_sys_open>:$/);
    expect(disasm.stderr).toMatch(/^int3: interrupted \(SIGHUP\) /);
    expect(disasm.status).toBe(129);
  });

  it('should stop demo between two slices of its workloads, printing the trace until then, exit 143', async () => {
    const r = await signalled(['demo'], 'SIGTERM');
    expect(r.signal).toBeNull();
    expect(r.stdout).toMatch(/^# cat trace_pipe {3}\(the demo was interrupted\)\n/);
    expect(r.stderr).toMatch(/^int3: interrupted \(SIGTERM\) (during the demo|at \d+\.\d{6} s of virtual time)/);
    expect(r.status).toBe(143);
  });

  it('should stop replay --at on the way to its event, describing the machine where it got, exit 130', async () => {
    const log = join(dir, 'spin.int3log');
    const rec = int3(['record', '-o', log, '--run', 'spin 3000000']);
    expect(rec.status).toBe(0);
    const events = readFileSync(log, 'utf8').split('\n').length - 3;
    const r = await signalled(['replay', log, '--at', String(events)], 'SIGINT');
    expect(r.signal).toBeNull();
    expect(r.stdout).toMatch(/^event \d+ of \d+: /);
    expect(r.stderr).toMatch(
      new RegExp(`^int3: interrupted \\(Ctrl-C\\) while replaying up to event ${events}: shown at event \\d+\\n$`),
    );
    expect(r.status).toBe(130);
  });
});
