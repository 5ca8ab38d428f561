import { existsSync, realpathSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HOST = realpathSync(fileURLToPath(import.meta.url));

/**
 * The directory a plugin's code lives in, as its stack frames show it: the nearest directory above
 * its entry file that holds a package.json (the package), else — or when that package holds int3's
 * own code too, as a file plugin inside int3's repository does — the entry file itself. Real paths,
 * as Node's loader reports them.
 */
export function pluginRoot(entry: string): string {
  const file = realpathSync(entry);
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return HOST.startsWith(`${dir}${sep}`) ? file : `${dir}${sep}`;
    if (dirname(dir) === dir) return file;
  }
}

/** True when a stack trace has a frame in `root` (a path or its file: URL). */
export function stackHasFrameIn(stack: string, root: string): boolean {
  return stack.includes(root) || stack.includes(pathToFileURL(root).href);
}
