// End-to-end tests of third-party plugins as their authors meet them: a tracer that fails is named on
// stderr after all output, exit 1, and the other tracers' reports stay intact. They spawn the built
// binary (dist/).
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { int3, lines } from './int3.js';

const dir = mkdtempSync(join(tmpdir(), 'int3-plugins-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const INVERSIFY = pathToFileURL(
  realpathSync(fileURLToPath(new URL('../node_modules/inversify/lib/index.js', import.meta.url))),
).href;

/** Bodies of a fixture tracer's methods (`this.k` is its kprobes, `this.kp` a kprobe on do_sys_open). */
interface TracerBodies {
  readonly hit?: string;
  readonly stop?: string;
  readonly report?: string;
}

/** Writes a plugin file `file` named `name` with one tracer per entry, each counting do_sys_open hits. */
function plugin(file: string, name: string, tracers: Record<string, TracerBodies>): string {
  const classes = Object.entries(tracers).map(
    ([t, b], i) => `class T${i} { name = '${t}'; hits = 0;
  start(ctx) { this.k = ctx.kprobes; this.kp = { symbolName: 'do_sys_open', preHandler: () => { this.hits++; ${b.hit ?? ''}; return 0; } }; this.k.registerKprobe(this.kp); }
  stop() { this.k.unregisterKprobe(this.kp); ${b.stop ?? ''} }
  report() { ${b.report ?? ''}; return { format: 'text', text: '${t} saw ' + this.hits + ' opens\\n' }; } }`,
  );
  const binds = Object.keys(tracers).map((t, i) => `bind('${t}').toConstantValue(new T${i}());`);
  const path = join(dir, file);
  writeFileSync(
    path,
    `import { ContainerModule } from '${INVERSIFY}';
${classes.join('\n')}
export const manifest = { name: '${name}', version: '1.0.0', apiVersion: 2, provides: ${JSON.stringify(Object.keys(tracers))} };
export const module = new ContainerModule(({ bind }) => { ${binds.join(' ')} });
`,
  );
  return path;
}

const OPEN = 'p:open do_sys_open filename=+0(%si):string';

describe('int3 trace with a tracer that fails', () => {
  const good = plugin('good.mjs', 'good-plugin', { good: {} });
  const broken = plugin('broken.mjs', 'broken-plugin', {
    thrower: { hit: "throw new Error('boom in handler')" },
    fine: {},
  });

  it('should print the trace and the other reports, then one stderr line naming plugin, tracer and probe, exit 1', () => {
    const r = int3(['trace', '-e', OPEN, '--run', 'cat /etc/motd', '--plugin', good, '--plugin', broken]);
    expect(r.status).toBe(1);
    const out = lines(r.stdout);
    expect(out[0]).toMatch(/ open: \(do_sys_open\+0x0\/0x[0-9a-f]+\) filename="\/etc\/motd"$/);
    expect(out.slice(1)).toEqual(['# good', 'good saw 1 opens', '# fine', 'fine saw 1 opens']);
    expect(r.stderr).toBe(
      "int3: plugin 'broken-plugin': tracer 'thrower': the pre-handler of its kprobe at do_sys_open threw while the machine ran: boom in handler; its probes are disabled\n",
    );
  });

  it('should add the stack of the exception with --verbose', () => {
    const r = int3(['trace', '--run', 'cat /etc/motd', '--plugin', broken, '--verbose']);
    expect(r.status).toBe(1);
    const err = r.stderr.split('\n');
    expect(err[0]).toMatch(/^int3: plugin 'broken-plugin': tracer 'thrower': .*boom in handler/);
    expect(err[1]).toBe('    Error: boom in handler');
    expect(err[2]).toMatch(/^ {8}at .*broken\.mjs:\d+:\d+/);
  });

  it('should report a stop() or report() that throws the same way, and keep the trace and the other reports', () => {
    const p = plugin('late.mjs', 'late-plugin', {
      badstop: { stop: "throw new Error('stop failed')" },
      badreport: { report: "throw new TypeError('report failed')" },
      ok: {},
    });
    const r = int3(['trace', '-e', OPEN, '--run', 'cat /etc/motd', '--plugin', p]);
    expect(r.status).toBe(1);
    const out = lines(r.stdout);
    expect(out[0]).toMatch(/ open: .*filename="\/etc\/motd"$/);
    expect(out.slice(1)).toEqual(['# ok', 'ok saw 1 opens']);
    expect(lines(r.stderr)).toEqual([
      "int3: plugin 'late-plugin': tracer 'badstop': stop() threw: stop failed",
      "int3: plugin 'late-plugin': tracer 'badreport': report() threw: report failed",
    ]);
  });

  it('should keep the JSON trace on stdout intact and name the failure on stderr', () => {
    const r = int3(['trace', '-e', OPEN, '--run', 'cat /etc/motd', '--plugin', broken, '--format', 'json']);
    expect(r.status).toBe(1);
    const records = lines(r.stdout).map((l) => JSON.parse(l));
    expect(records.map((x) => x.type)).toEqual(['header', 'format', 'event', 'end']);
    expect(r.stderr).toMatch(/^# fine\nfine saw 1 opens\nint3: plugin 'broken-plugin': tracer 'thrower': /);
  });
});

describe('int3 trace --tracer', () => {
  it("should start a built-in tracer with its arguments and print bcc's funclatency layout after the trace", () => {
    const r = int3(['trace', '-e', OPEN, '--tracer', 'funclatency do_sys_open', '--run', 'cat /etc/motd']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = lines(r.stdout);
    expect(out[0]).toMatch(/ open: \(do_sys_open\+0x0\/0x[0-9a-f]+\) filename="\/etc\/motd"$/);
    expect(out[1]).toBe('# funclatency');
    expect(out[2]).toBe('     nsecs               : count     distribution');
    expect(r.stdout).toMatch(/ : 1 {8}\|\*{40}\|\n\navg = (\d+) nsecs, total: \1 nsecs, count: 1\n$/);
  });

  it('should pass a plugin tracer its arguments, and start only the --tracer ones when any is given', () => {
    const p = plugin('args.mjs', 'args-plugin', {
      echo: { report: "this.hits = (this.args ?? []).join('+')" },
      other: {},
    });
    const src = readFileSync(p, 'utf8').replace('start(ctx) {', 'start(ctx) { this.args = ctx.args;');
    writeFileSync(p, src);
    const r = int3(['trace', '--plugin', p, '--tracer', "echo 'a b' c", '--run', 'cat /etc/motd']);
    expect(r.stderr).toBe('');
    expect(lines(r.stdout)).toEqual(['# echo', 'echo saw a b+c opens']);
  });

  it('should refuse an unknown tracer or a bad one with one line', () => {
    const unknown = int3(['trace', '--tracer', 'nope']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(
      /^int3: unknown tracer 'nope' \(available: funclatency, chrome-trace, bpftrace; see 'int3 tracers'\)/,
    );
    const bad = int3(['trace', '--tracer', 'funclatency -x vfs_read']);
    expect(bad.status).toBe(2);
    expect(lines(bad.stderr)).toEqual([
      "int3: funclatency: unknown option '-x'; usage: funclatency [-u|-m] [-F] PATTERN (e.g. funclatency vfs_read, funclatency -F \"vfs_*\") (see 'int3 trace --help')",
    ]);
    const unmatched = int3(['trace', '--tracer', 'funclatency no_such_*']);
    expect([unmatched.status, lines(unmatched.stderr)]).toEqual([
      2,
      ['int3: funclatency: 0 functions matched by "no_such_*" (see \'int3 trace --help\')'],
    ]);
    const chrome = int3(['trace', '--tracer', 'chrome-trace --complete']);
    expect([chrome.status, lines(chrome.stderr)]).toEqual([
      2,
      [
        "int3: chrome-trace: usage: chrome-trace [--complete] FUNCTION|p:FUNCTION... (e.g. vfs_read p:do_sys_open) (see 'int3 trace --help')",
      ],
    ]);
  });
});

describe('int3 tracers', () => {
  it('should list the built-in tracers and those of each --plugin, with a one-line description', () => {
    const r = int3(['tracers', '--plugin', plugin('listed.mjs', 'listed-plugin', { listed: {} })]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = lines(r.stdout);
    expect(out[0]).toMatch(/^TRACER +PLUGIN +DESCRIPTION$/);
    expect(out[1]).toMatch(/^funclatency +built-in +time kernel functions.*\[-u\|-m\] \[-F\] PATTERN$/);
    expect(out[2]).toMatch(/^chrome-trace +built-in +record kernel function calls as Chrome Trace Event JSON/);
    expect(out[3]).toMatch(/^bpftrace +built-in +bpftrace's language on kprobes/);
    expect(out[4]).toMatch(/^listed +listed-plugin@1\.0\.0 +\(no description\)$/);
    expect(out).toHaveLength(5);
    // The columns line up.
    expect(out.slice(1).map((l) => l.search(/built-in|listed-plugin/))).toEqual(
      [0, 0, 0, 0].fill(out[0].indexOf('PLUGIN')),
    );
    expect(out.slice(1).map((l) => l.search(/time|record|bpftrace's|\(no/))).toEqual(
      [0, 0, 0, 0].fill(out[0].indexOf('DESCRIPTION')),
    );
  });
});

/** Writes a one-tracer plugin whose start() body is `start` (ctx is the TracerContext) and returns its path. */
function startPlugin(file: string, start: string): string {
  const path = join(dir, file);
  writeFileSync(
    path,
    `import { ContainerModule } from '${INVERSIFY}';
class T { name = 't'; start(ctx) { ${start} } stop() { if (this.kp) this.k.unregisterKprobe(this.kp); }
  report() { return { format: 'text', text: 't report\\n' }; } }
export const manifest = { name: '${file.replace('.mjs', '')}', version: '1.0.0', apiVersion: 2, provides: ['t'] };
export const module = new ContainerModule(({ bind }) => { bind('t').toConstantValue(new T()); });
`,
  );
  return path;
}

/** start() registers a kprobe on `func` whose pre-handler runs `body`. */
const probe = (func: string, body: string) =>
  `this.k = ctx.kprobes; this.kp = { symbolName: '${func}', preHandler: () => { ${body}; return 0; } }; this.k.registerKprobe(this.kp);`;

describe('plugin containment (issue 13)', () => {
  it.each([
    ['a timer', "setTimeout(() => { throw new Error('from a timer'); }, 0);", 'from a timer'],
    ['a promise', "Promise.reject(new Error('from a promise'));", 'from a promise'],
    [
      'an RxJS subscription',
      `ctx.kprobes.events$.subscribe(() => { throw new Error('from a subscription'); }); ${probe('do_sys_open', '')}`,
      'from a subscription',
    ],
  ])('should name a throw from %s, print the trace, exit 1, no Node stack', (_what, start, message) => {
    const p = startPlugin(`async-${message.split(' ').pop()}.mjs`, start);
    const r = int3(['trace', '-e', OPEN, '--run', 'cat /etc/motd', '--plugin', p]);
    expect(r.status).toBe(1);
    expect(lines(r.stdout)[0]).toMatch(/ open: .*filename="\/etc\/motd"$/);
    expect(r.stderr).toMatch(new RegExp(`^int3: plugin 'async-\\w+': tracer 't': .*: ${message}\\n$`));
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('should refuse process.exit(0) in a handler or a timer: the trace is printed and the exit status is 1', () => {
    for (const [file, start] of [
      ['exit-handler.mjs', probe('do_sys_open', 'process.exit(0)')],
      ['exit-timer.mjs', 'setTimeout(() => process.exit(0), 0);'],
    ]) {
      const r = int3(['trace', '-e', OPEN, '--run', 'cat /etc/motd', '--plugin', startPlugin(file, start)]);
      expect(r.status).toBe(1);
      expect(lines(r.stdout)[0]).toMatch(/ open: .*filename="\/etc\/motd"$/);
      expect(r.stderr).toMatch(
        /^int3: plugin 'exit-\w+': tracer 't': .*it called process\.exit\(0\), which int3 refuses/,
      );
    }
  });

  it('should stop an endless loop in a handler after --plugin-timeout, name it, print the trace so far, exit 1', () => {
    const p = startPlugin('spin.mjs', probe('vfs_read', 'for (;;) {}'));
    const r = int3(['trace', '-e', OPEN, '--run', 'cat /etc/motd', '--plugin', p, '--plugin-timeout', '1']);
    expect(r.status).toBe(1);
    expect(lines(r.stdout)[0]).toMatch(/ open: .*filename="\/etc\/motd"$/);
    expect(r.stderr).toBe(
      "int3: plugin 'spin': tracer 't': the pre-handler of its kprobe at vfs_read did not return within 1 s; the run was stopped there\n",
    );
  });

  it('should stop an endless loop in a handler during replay too', () => {
    const log = join(dir, 'spin.int3log');
    expect(int3(['record', '-o', log, '-e', OPEN, '--run', 'cat /etc/motd']).status).toBe(0);
    const p = startPlugin('spinreplay.mjs', probe('vfs_read', 'for (;;) {}'));
    const r = int3(['replay', log, '--plugin', p, '--plugin-timeout', '1']);
    expect(r.status).toBe(1);
    expect(lines(r.stdout)[0]).toMatch(/ open: .*filename="\/etc\/motd"$/);
    expect(r.stderr).toBe(
      "int3: plugin 'spinreplay': tracer 't': the pre-handler of its kprobe at vfs_read did not return within 1 s; the run was stopped there\n",
    );
  });

  it('should stop an endless loop in start() the same way, before the run', () => {
    const r = int3(['trace', '--plugin', startPlugin('spinstart.mjs', 'for (;;) {}'), '--plugin-timeout', '0.5']);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe("int3: plugin 'spinstart': tracer 't': start() threw: it did not return within 0.5 s\n");
  });

  it('should end the process when the command is done, whatever timers a plugin left', () => {
    const p = startPlugin('interval.mjs', 'setInterval(() => {}, 1000);');
    const r = int3(['trace', '--run', 'hello', '--plugin', p]);
    expect(r.status).toBe(0);
    expect(lines(r.stdout)).toEqual(['# t', 't report']);
  });
});

describe('a plugin with its own copy of @int3/* in its node_modules', () => {
  it("should get int3's copies of @int3/* and of its peerDependencies: instanceof PtRegs and KprobeError hold", () => {
    const root = join(dir, 'own-copies');
    const files: Record<string, string> = {
      'package.json': JSON.stringify({
        name: 'own-copies',
        type: 'module',
        exports: './index.js',
        peerDependencies: { '@int3/kernel': '*', '@int3/kprobes': '*', inversify: '*' },
      }),
      // What `npm install` in the plugin's directory leaves: copies that are not the ones int3 runs.
      'node_modules/@int3/kernel/package.json': JSON.stringify({
        name: '@int3/kernel',
        type: 'module',
        exports: './index.js',
      }),
      'node_modules/@int3/kernel/index.js': 'export class PtRegs {}\n',
      'node_modules/@int3/kprobes/package.json': JSON.stringify({
        name: '@int3/kprobes',
        type: 'module',
        exports: './index.js',
      }),
      'node_modules/@int3/kprobes/index.js': 'export class KprobeError extends Error {}\n',
      'index.js': `import { ContainerModule } from 'inversify';
import { PtRegs } from '@int3/kernel';
import { KprobeError } from '@int3/kprobes';
class T { name = 'copies';
  start(ctx) {
    this.k = ctx.kprobes;
    this.kp = { symbolName: 'do_sys_open', preHandler: (_p, regs) => { this.regs = regs instanceof PtRegs; return 0; } };
    this.k.registerKprobe(this.kp);
    try { ctx.kprobes.registerKprobe({ symbolName: 'no_such_function_anywhere' }); } catch (e) { this.kprobeError = e instanceof KprobeError; }
  }
  stop() { this.k.unregisterKprobe(this.kp); }
  report() { return { format: 'text', text: 'PtRegs ' + this.regs + ', KprobeError ' + this.kprobeError + '\\n' }; } }
export const manifest = { name: 'own-copies', version: '1.0.0', apiVersion: 2, provides: ['copies'] };
export const module = new ContainerModule(({ bind }) => { bind('copies').toConstantValue(new T()); });
`,
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    const r = int3(['trace', '--run', 'cat /etc/motd', '--plugin', root]);
    expect(r.stderr).toBe('');
    expect(lines(r.stdout)).toEqual(['# copies', 'PtRegs true, KprobeError true']);
  });
});
