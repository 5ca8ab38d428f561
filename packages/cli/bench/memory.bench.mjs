#!/usr/bin/env node
// `pnpm bench` for @int3/cli: peak resident memory of a long run. `int3 trace --run 'spin N'` and
// `int3 record -o <tmp> --run 'spin N'`, N large enough to never finish, each run for --seconds of
// host time (default 60) and then stopped with SIGINT, as Ctrl-C would: the CLI prints the trace
// (record writes its log) and exits 130. The peak is the process's own ru_maxrss at exit (preloaded
// peak-rss.cjs), so the final printing and log writing are included. The resident size is also
// sampled from /proc/<pid>/status every second (Linux), to show whether it still grows at the end.
// A third run is the idle case: `int3 tracefs` with the script `sleep 100` (100 s of virtual time
// on an idle machine), to its end.
// Needs a build (`tsc -b`): it runs ../dist/bin.js. Options: --seconds S, --only trace|record|sleep.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const seconds = Number(opt('seconds', 60));
const only = opt('only', undefined);
const TARGET_MB = 300;
const WORKLOAD = 'spin 1000000000000';
const SCRIPT = 'node packages/cli/bench/memory.bench.mjs';

const mb = (kib) => (kib / 1024).toFixed(0);

/** VmRSS of `pid` in KiB, or undefined (process gone, or no /proc). */
function residentKib(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Runs the CLI with `argv`; after `seconds` (unless undefined: to its end) stops it with SIGINT.
 * Resolves with what it measured.
 */
function measure(argv, dir, seconds) {
  const peakFile = join(dir, `peak-${argv[0]}`);
  const child = spawn(
    process.execPath,
    ['--require', join(here, 'peak-rss.cjs'), join(here, '../dist/bin.js'), ...argv],
    {
      env: { ...process.env, INT3_PEAK_RSS_FILE: peakFile, NO_COLOR: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr = (stderr + d).slice(-4096);
  });
  const samples = [];
  const sampler = setInterval(() => {
    const kib = residentKib(child.pid);
    if (kib !== undefined) samples.push(kib);
  }, 1000);
  const stop = seconds === undefined ? undefined : setTimeout(() => child.kill('SIGINT'), seconds * 1000);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearInterval(sampler);
      clearTimeout(stop);
      let peak;
      try {
        peak = Number(readFileSync(peakFile, 'utf8'));
      } catch {
        reject(new Error(`${argv.join(' ')}: no peak written (exit ${code ?? signal}): ${stderr.trim()}`));
        return;
      }
      const virtual = /at ([\d.]+) s of virtual time/.exec(stderr)?.[1];
      resolve({ code, peak, samples, virtual, stderr });
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), 'int3-memory-bench-'));
try {
  const script = join(dir, 'sleep.sh');
  writeFileSync(script, 'sleep 100\n');
  const runs = [
    ['trace', ['trace', '--run', WORKLOAD]],
    ['record', ['record', '-o', join(dir, 'run.int3log'), '--run', WORKLOAD]],
    ['sleep', ['tracefs', '--script', script]],
  ].filter(([name]) => only === undefined || only === name);
  for (const [name, argv] of runs) {
    const idle = name === 'sleep';
    const t0 = performance.now();
    const r = await measure(argv, dir, idle ? undefined : seconds);
    const want = idle ? 0 : 130;
    if (r.code !== want) throw new Error(`${name}: expected exit ${want}, got ${r.code}: ${r.stderr.trim()}`);
    const at = (s) => (r.samples.length > s ? `${mb(r.samples[s])} MB` : 'n/a');
    const what = idle
      ? `int3 tracefs, script 'sleep 100' (100 s virtual, idle), to its end in ${((performance.now() - t0) / 1000).toFixed(0)} s`
      : `int3 ${name} --run '${WORKLOAD}', ${seconds} s then SIGINT (${r.virtual ?? '?'} s virtual)`;
    const log = name === 'record' ? `, log ${(statSync(join(dir, 'run.int3log')).size / 1024).toFixed(0)} KiB` : '';
    const resident = idle ? '' : `; resident at 10 s ${at(9)}, at the end ${at(r.samples.length - 1)}`;
    console.log(
      `${what}: peak RSS ${mb(r.peak)} MB (target <= ${TARGET_MB} MB${resident}${log})  [${SCRIPT} --only ${name}]`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
