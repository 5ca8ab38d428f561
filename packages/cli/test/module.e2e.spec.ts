// End-to-end tests of modules written as for Linux: `int3 module build` (gcc at test time, with the
// headers the package ships, run outside the repository), `--insmod` with parameters, the tracefs
// shell's insmod/rmmod/dmesg, the journaled module bytes, and the README walkthrough, run as written.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeLogLine } from '@int3/kernel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { int3, lines, REPO_ROOT } from './int3.js';

const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

let dir: string;
/** `int3 …` in the scratch directory, outside the repository. */
const run = (args: readonly string[], input?: string) => int3(args, input, { cwd: dir });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'int3-module-'));
  mkdirSync(join(dir, 'examples', 'kprobe-module'), { recursive: true });
  copyFileSync(
    join(REPO_ROOT, 'examples', 'kprobe-module', 'time_func.c'),
    join(dir, 'examples', 'kprobe-module', 'time_func.c'),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('int3 module build', () => {
  it('should build a module from several files with ld -r, and name the output', () => {
    writeFileSync(
      join(dir, 'a.c'),
      '#include <linux/module.h>\nint helper(int x);\nstatic int __init a_init(void) { pr_info("a: %d\\n", helper(20)); return 0; }\nmodule_init(a_init);\nMODULE_LICENSE("GPL");\n',
    );
    writeFileSync(join(dir, 'b.c'), 'int helper(int x);\nint helper(int x) { return x + 1; }\n');
    const r = run(['module', 'build', 'a.c', 'b.c', '-o', 'ab.ko']);
    expect(r).toEqual({ status: 0, stdout: 'ab.ko\n', stderr: '' });
    expect(execFileSync('readelf', ['-h', join(dir, 'ab.ko')], { encoding: 'utf8' })).toMatch(
      /REL \(Relocatable file\)/,
    );
    expect(run(['dmesg', '--insmod', 'ab.ko']).stdout).toMatch(/\] a: 21\n/);
  });

  it("should fail with gcc's own message on a compile error and on a warning the kernel flags make fatal", () => {
    writeFileSync(join(dir, 'bad.c'), 'int f(void) { return nope; }\n');
    const bad = run(['module', 'build', 'bad.c']);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/bad\.c:1:\d+: error: .nope. undeclared/);
    writeFileSync(join(dir, 'implicit.c'), 'int f(void) { return undeclared_function(); }\n');
    const implicit = run(['module', 'build', 'implicit.c']);
    expect(implicit.status).toBe(1);
    expect(implicit.stderr).toMatch(
      /error: implicit declaration of function .undeclared_function. \[-Werror=implicit-function-declaration\]/,
    );
  });

  it.each(['kprobe_example', 'jprobe_example', 'kretprobe_example'])(
    'should build the seed module %s byte for byte as its committed .ko',
    (name) => {
      const seeds = join(REPO_ROOT, 'packages/kernel/image/modules/kprobes');
      const out = join(dir, `${name}.seed.ko`);
      const r = int3(['module', 'build', `${name}.c`, '-o', out], undefined, { cwd: seeds });
      expect([r.status, r.stderr]).toEqual([0, '']);
      expect(Buffer.compare(readFileSync(out), readFileSync(join(seeds, `${name}.ko`)))).toBe(0);
    },
  );

  it('should say which compiler is missing', () => {
    const r = int3(['module', 'build', 'x.c'], undefined, { cwd: dir, env: { ...process.env, CC: 'no-such-gcc' } });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/cannot run no-such-gcc: install gcc/);
  });
});

describe('the task a module runs in: current->mm and msleep()', () => {
  it('should see no mm in init (a kernel thread) and the user task’s mm in a probe handler, and sleep in init', () => {
    writeFileSync(
      join(dir, 'whose.c'),
      `#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sched.h>

static int handler_pre(struct kprobe *p, struct pt_regs *regs)
{
	pr_info("%s in %s (pid %d): mm %s\\n", p->symbol_name, current->comm, current->pid,
		current->mm ? "set" : "NULL");
	return 0;
}

static struct kprobe kp = { .symbol_name = "ksys_write", .pre_handler = handler_pre };

static int __init whose_init(void)
{
	ktime_t t0 = ktime_get();

	pr_info("init in %s (pid %d): mm %s\\n", current->comm, current->pid, current->mm ? "set" : "NULL");
	msleep(25);
	pr_info("init slept %lld ms\\n", ktime_to_ms(ktime_sub(ktime_get(), t0)));
	return register_kprobe(&kp);
}

static void __exit whose_exit(void)
{
	unregister_kprobe(&kp);
}

module_init(whose_init);
module_exit(whose_exit);
MODULE_LICENSE("GPL");
`,
    );
    expect(run(['module', 'build', 'whose.c'])).toEqual({ status: 0, stdout: 'whose.ko\n', stderr: '' });
    const r = run(['dmesg', '--insmod', 'whose.ko', '--run', 'hello']);
    expect([r.status, r.stderr]).toEqual([0, '']);
    const said = lines(r.stdout)
      .filter((l) => / whose: /.test(l))
      .map((l) => l.replace(/^\[[ \d.]+\] whose: /, ''));
    expect(said).toEqual([
      'init in swapper (pid 0): mm NULL',
      'init slept 26 ms',
      'ksys_write in hello (pid 1): mm set',
    ]);
    // The sleep passed on virtual time: the workload's write came after it.
    const stamp = (re: RegExp) =>
      Number(
        lines(r.stdout)
          .find((l) => re.test(l))!
          .match(/^\[ *([\d.]+)\]/)![1],
      );
    expect(stamp(/ksys_write in hello/) - stamp(/init in swapper/)).toBeGreaterThanOrEqual(0.025);
  }, 180_000);
});

describe('insmod', () => {
  it("should fail a module that does not link with Linux's message, and the shell goes on", () => {
    writeFileSync(
      join(dir, 'needs.c'),
      '#include <linux/module.h>\nint missing_thing(void);\nstatic int __init n_init(void) { return missing_thing(); }\nmodule_init(n_init);\n',
    );
    expect(run(['module', 'build', 'needs.c']).status).toBe(0);
    // kmod's insmod line (ENOENT is "Unknown symbol in module"); the kernel log names the symbol, as
    // simplify_symbols() logs it.
    const r = run(['tracefs'], 'insmod needs.ko\nrun hello\ndmesg\n');
    expect(r.stderr).toBe('insmod: ERROR: could not insert module needs.ko: Unknown symbol in module\n');
    expect(r.stdout).toMatch(/^Hello/m);
    expect(r.stdout).toMatch(/\] needs: Unknown symbol missing_thing \(err -2\)$/m);
    expect(r.status).toBe(1);
    const t = run(['trace', '--insmod', 'needs.ko']);
    expect([t.status, t.stderr]).toEqual([
      1,
      'int3: insmod: ERROR: could not insert module needs.ko: Unknown symbol in module (the kernel log: needs: Unknown symbol missing_thing (err -2))\n',
    ]);
  });

  it('should probe a module function as sym and mod:sym, marked [mod], and refuse its NOKPROBE_SYMBOL functions', () => {
    expect(run(['module', 'build', 'examples/kprobe-module/time_func.c']).status).toBe(0);
    const script = [
      'insmod time_func.ko func=do_sys_open',
      "echo 'p:a time_func_exit' > kprobe_events",
      "echo 'p:b time_func:time_func_exit' >> kprobe_events",
      'cat /sys/kernel/debug/kprobes/list',
      "echo 'p:c ret_handler' >> kprobe_events",
    ].join('\n');
    const r = run(['tracefs'], script);
    expect(lines(r.stdout).filter((l) => l.includes('time_func_exit'))).toEqual([
      expect.stringMatching(/^ffffffffa[0-9a-f]+ {2}k {2}time_func_exit\+0x0 {2}time_func \[DISABLED\]$/),
      expect.stringMatching(/^ffffffffa[0-9a-f]+ {2}k {2}time_func_exit\+0x0 {2}time_func \[DISABLED\]$/),
    ]);
    expect(r.stderr).toBe('echo: write error: Invalid argument\n');
  });

  it('should journal the module bytes and their hash, replay without the file, and refuse altered bytes', () => {
    expect(run(['module', 'build', 'examples/kprobe-module/time_func.c']).status).toBe(0);
    const log = join(dir, 'run.int3log');
    const rec = run(['record', '-o', log, '--insmod', 'time_func.ko func=vfs_read', '--run', 'cat /etc/motd']);
    expect(rec.status).toBe(0);
    const text = readFileSync(log, 'utf8');
    const line = text.split('\n').find((l) => l.includes('"input:insmod"'))!;
    const entry = JSON.parse(line.slice(line.indexOf(' ') + 1));
    expect(entry).toMatchObject({ name: 'time_func.ko', params: ['func=vfs_read'] });
    expect(entry.sha256).toMatch(/^[0-9a-f]{64}$/);
    rmSync(join(dir, 'time_func.ko'));
    expect(run(['replay', log]).status).toBe(0);
    // One byte of the module changed and the line's CRC made right again (the CRC is an accident check
    // anyone can recompute): the sha256 in the entry no longer matches.
    const altered = join(dir, 'altered.int3log');
    const data = Buffer.from(entry.data, 'base64');
    data[data.length - 1] ^= 1;
    writeFileSync(altered, text.replace(`${line}\n`, encodeLogLine({ ...entry, data: data.toString('base64') })));
    const r = run(['replay', altered]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /insmod time_func\.ko: the module's bytes do not match their sha256 \(the log was altered\)/,
    );
  });
});

describe('README: write your first kprobe module', () => {
  it('should print what the walkthrough shows, running its commands as written', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const block = readme.match(/<!-- walkthrough[^>]*-->\n```console\n([\s\S]*?)```\n<!-- \/walkthrough -->/)![1];
    // Step 1: split the block into commands and the lines shown under each (… stands for lines left out).
    const steps: { command: string; shown: string[] }[] = [];
    for (const line of block.split('\n').filter(Boolean)) {
      if (line.startsWith('$ ')) steps.push({ command: line.slice(2), shown: [] });
      else if (line !== '…') steps.at(-1)!.shown.push(line);
    }
    expect(steps.length).toBe(3);
    // Step 2: run each in a directory outside the repository, `pnpm int3` being the built binary.
    for (const { command, shown } of steps) {
      const r = spawnSync('bash', ['-c', command.replaceAll('pnpm int3', `node ${BIN}`)], {
        cwd: dir,
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect([r.status, r.stderr], command).toEqual([0, '']);
      for (const line of shown) expect(lines(r.stdout), command).toContain(line);
    }
  });
});
