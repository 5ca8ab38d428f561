import { WORKLOADS } from '@int3/kernel';
import { DEBUGFS_KPROBES, TRACEFS_ROOT } from '@int3/tracer-plugins';

/** The tracefs shell's commands, as completion offers them. */
export const SHELL_COMMANDS: readonly string[] = [
  'echo',
  'cat',
  'ls',
  'run',
  'call',
  'sleep',
  'insmod',
  'rmmod',
  'dmesg',
  'help',
];

/** The absolute directories the shell knows. */
const MOUNTS: readonly string[] = [TRACEFS_ROOT, DEBUGFS_KPROBES];

/** What completion needs of a tracefs: listing a directory (throwing for a file or a missing path). */
export interface ListableFs {
  ls(path: string): string[];
}

/**
 * Tab completion for the tracefs shell, in node:readline's completer shape `[hits, word]`: the first
 * word completes to a command, the word after `run` to a workload, any other word to a tracefs or
 * debugfs path (relative to `/sys/kernel/tracing`; directories end with `/`; an absolute path first
 * completes to a mount point).
 *
 * @see https://nodejs.org/api/readline.html#use-of-the-completer-function
 * @example
 * completeShellLine('cat kprobe_p', fs); // [['kprobe_profile'], 'kprobe_p']
 */
export function completeShellLine(line: string, fs: ListableFs): [string[], string] {
  const word = /(\S*)$/.exec(line)![1];
  const before = line.slice(0, line.length - word.length).trim();
  if (before === '') return [SHELL_COMMANDS.filter((c) => c.startsWith(word)).map((c) => `${c} `), word];
  if (before === 'run') return [WORKLOADS.filter((w) => w.startsWith(word)).map((w) => `${w} `), word];
  const slash = word.lastIndexOf('/');
  const dir = word.slice(0, slash + 1);
  const base = word.slice(slash + 1);
  if (word.startsWith('/') && !MOUNTS.some((m) => dir.startsWith(`${m}/`))) {
    return [MOUNTS.map((m) => `${m}/`).filter((m) => m.startsWith(word)), word];
  }
  let entries: string[];
  try {
    entries = fs.ls(dir === '' ? '.' : dir);
  } catch {
    return [[], word];
  }
  const hits = entries
    .filter((e) => e.startsWith(base))
    .map((e) => (isDirectory(fs, `${dir}${e}`) ? `${dir}${e}/` : `${dir}${e}`));
  return [hits, word];
}

function isDirectory(fs: ListableFs, path: string): boolean {
  try {
    fs.ls(path);
    return true;
  } catch {
    return false;
  }
}
