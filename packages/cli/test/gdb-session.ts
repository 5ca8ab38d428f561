import { spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, startInt3 } from './int3.js';

/** gdb from PATH, or why there is none. */
function findGdb(): { readonly path: string } | { readonly why: string } {
  const r = spawnSync('sh', ['-c', 'command -v gdb'], { encoding: 'utf8' });
  const path = r.stdout.trim();
  return r.status === 0 && path !== '' ? { path } : { why: 'no gdb on PATH' };
}

const gdb = findGdb();

/**
 * The gdb tests drive Debian's gdb. Without one: with CI=true they fail naming the package; else they
 * are skipped with one line saying why (the bootstrap installs it when it runs as root with apt).
 */
export const skipGdb = 'why' in gdb && process.env.CI !== 'true';
if (skipGdb && 'why' in gdb)
  console.log(`gdb tests skipped: ${gdb.why}; install Debian's gdb package (apt-get install gdb)`);

function gdbPath(): string {
  if ('why' in gdb)
    throw new Error(`the gdb tests need gdb: ${gdb.why}. Install Debian's gdb package (apt-get install gdb)`);
  return gdb.path;
}

/** What a gdb session printed, and the stub's stderr and exit status. */
export interface GdbTranscript {
  readonly gdb: string;
  readonly stub: string;
  /** The stub's stdout (a live run's trace). */
  readonly stubOut: string;
  readonly status: number | null;
}

/**
 * Serves `log` with `int3 replay LOG --gdb 0` (or the `int3` arguments given) and runs `commands` in `gdb -batch -nx` connected to it
 * (`target remote` first): as a script (`-x`: the first error ends it), or with `each` as one `-ex`
 * per command (an error does not stop the next); with `debugInfo`, on the kernel's vmlinux.debug and
 * its sources. The transcript has gdb's stdout and stderr as one
 * stream.
 */
export async function gdbSession(
  dir: string,
  log: string,
  commands: readonly string[],
  options: { readonly each?: boolean; readonly debugInfo?: boolean; readonly int3?: readonly string[] } = {},
): Promise<GdbTranscript> {
  const stub = startInt3(options.int3 ?? ['replay', log, '--gdb', '0']);
  const port = await new Promise<string>((resolve, reject) => {
    const poll = setInterval(() => {
      const m = /gdb stub on 127\.0\.0\.1:(\d+)/.exec(stub.stderr);
      if (m) {
        clearInterval(poll);
        resolve(m[1]);
      } else if (stub.child.exitCode !== null) {
        clearInterval(poll);
        reject(new Error(`int3 replay --gdb exited: ${stub.stderr}`));
      }
    }, 20);
  });
  const script = join(dir, `session-${port}.gdb`);
  const imageDir = join(REPO_ROOT, 'packages/kernel/image');
  const lines = [
    'set pagination off',
    'set confirm off',
    'set width 0',
    ...(options.debugInfo ? [`directory ${imageDir}`] : []),
    `target remote :${port}`,
    ...commands,
  ];
  writeFileSync(script, `${lines.join('\n')}\n`);
  const how = options.each ? lines.flatMap((l) => ['-ex', l]) : ['-x', script];
  // One file for stdout and stderr, so errors stay where gdb printed them.
  const out = join(dir, `session-${port}.out`);
  const fd = openSync(out, 'w');
  try {
    const file = join(imageDir, options.debugInfo ? 'vmlinux.debug' : 'vmlinux');
    spawnSync(gdbPath(), ['-batch', '-nx', ...how, file], {
      stdio: ['ignore', fd, fd],
      timeout: 120_000,
      cwd: dir,
    });
  } finally {
    closeSync(fd);
  }
  if (stub.child.exitCode === null) {
    const timer = setTimeout(() => stub.child.kill('SIGKILL'), 10_000);
    await stub.done;
    clearTimeout(timer);
  }
  const done = await stub.done;
  return { gdb: readFileSync(out, 'utf8'), stub: done.stderr, stubOut: done.stdout, status: done.status };
}

/** The part of a transcript after `echo @@name\n` and before the next marker. */
export function section(transcript: string, name: string): string {
  const start = transcript.indexOf(`@@${name}\n`);
  if (start < 0) throw new Error(`no section ${name} in:\n${transcript}`);
  const rest = transcript.slice(start + name.length + 3);
  const end = rest.indexOf('@@');
  return end < 0 ? rest : rest.slice(0, end);
}
