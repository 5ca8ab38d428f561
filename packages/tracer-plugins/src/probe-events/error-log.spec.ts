import { describe, expect, it } from 'vitest';
import { ErrorLog, formatErrorLogEntry } from './error-log.js';
import { parseProbeCommand } from './parse-probe-command.js';
import type { ProbeResolver } from './probe-definition.js';

const resolver: ProbeResolver = {
  countSymbols: () => 1,
  functionEntry: (_s, off) => (off === 0 ? 'entry' : 'not-entry'),
  isModuleLoaded: () => true,
};

function logged(cmd: string, ns: bigint) {
  const r = parseProbeCommand(cmd.split(' '), resolver);
  if (r.ok || !r.error.logMessage) throw new Error('expected a logged error');
  return {
    timestampNs: ns,
    location: 'trace_kprobe',
    message: r.error.logMessage,
    command: r.error.command,
    position: r.error.position,
  };
}

describe(formatErrorLogEntry, () => {
  it('should print the kernel three-line entry with the caret under the culprit', () => {
    expect(formatErrorLogEntry(logged('p vfs_read $retval', 123_456_789_000n))).toBe(
      '[  123.456789] trace_kprobe: error: $retval is not available on probe\n' +
        '  Command: p vfs_read $retval\n' +
        `${' '.repeat(22)}^\n`,
    );
  });
});

describe(ErrorLog, () => {
  it('should keep only the last eight entries and empty on clear', () => {
    const log = new ErrorLog();
    for (let i = 0; i < 10; i++) log.append(logged(`p vfs_read x${i}=$retval`, BigInt(i) * 1_000_000_000n));
    expect(log.entries.map((e) => e.command)).toEqual(
      Array.from({ length: 8 }, (_, i) => `p vfs_read x${i + 2}=$retval`),
    );
    expect(log.show().split('\n')).toHaveLength(25);
    expect(log.show().startsWith('[    2.000000] trace_kprobe: error:')).toBe(true);
    log.clear();
    expect(log.show()).toBe('');
  });
});
