import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Where the browser tests' Chromium is, or why there is none. */
export type ChromiumLookup =
  | { readonly found: true; readonly path: string }
  | { readonly found: false; readonly why: string };

/**
 * Finds Debian's Chromium for the browser tests: `INT3_CHROMIUM` if set (it must exist), else
 * `chromium` or `chromium-browser` on PATH. Browser downloads do not work on this project's machines,
 * so there is no other fallback.
 *
 * @example
 * const c = findChromium(process.env); if (c.found) await chromium.launch({ executablePath: c.path });
 */
export function findChromium(env: NodeJS.ProcessEnv): ChromiumLookup {
  const given = env.INT3_CHROMIUM;
  if (given !== undefined && given !== '') {
    return existsSync(given)
      ? { found: true, path: given }
      : { found: false, why: `INT3_CHROMIUM=${given} does not exist` };
  }
  for (const name of ['chromium', 'chromium-browser']) {
    const r = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8', env });
    if (r.status === 0 && r.stdout.trim() !== '') return { found: true, path: r.stdout.trim() };
  }
  return { found: false, why: "no chromium on PATH and INT3_CHROMIUM is not set (Debian's package: chromium)" };
}

/** The launch arguments: Chromium's sandbox cannot run as root. */
export function chromiumArgs(): string[] {
  return process.getuid?.() === 0 ? ['--no-sandbox'] : [];
}
