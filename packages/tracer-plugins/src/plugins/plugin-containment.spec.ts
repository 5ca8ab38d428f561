import { describe, expect, it } from 'vitest';
import { containPlugins, PluginExitRefused } from './plugin-containment.js';

/** Installs containment over a stub process.exit, runs `body`, and restores everything. */
function withContainment(pluginCode: boolean, body: (log: unknown[]) => void): unknown[] {
  const log: unknown[] = [];
  const realExit = process.exit;
  process.exit = ((code?: number) => {
    log.push(['exit', code]);
  }) as typeof process.exit;
  const release = containPlugins(
    {
      attribute: () => (pluginCode ? 'a plugin' : undefined),
      failAsync: (error, what) => {
        log.push(['failed', (error as Error).message, what]);
        return pluginCode;
      },
    },
    (error) => log.push(['unattributed', (error as Error).message]),
  );
  try {
    body(log);
  } finally {
    release();
    process.exit = realExit;
  }
  return log;
}

describe(containPlugins, () => {
  it("should refuse process.exit from a plugin's code with PluginExitRefused", () => {
    withContainment(true, () => {
      expect(() => process.exit(0)).toThrow(new PluginExitRefused(0));
      expect(() => process.exit()).toThrow('it called process.exit(), which int3 refuses');
    });
  });

  it("should let int3's own process.exit through, with or without a code", () => {
    const log = withContainment(false, () => {
      process.exit(3);
      process.exit();
    });
    expect(log).toEqual([
      ['exit', 3],
      ['exit', undefined],
    ]);
  });

  it('should hand an uncaught exception or rejection to the sink, and what no plugin owns to unattributed', () => {
    const owned = withContainment(true, () => {
      process.emit('uncaughtException', new Error('timer'));
      process.emit('unhandledRejection', new Error('promise'), Promise.resolve());
    });
    expect(owned).toEqual([
      ['failed', 'timer', undefined],
      ['failed', 'promise', 'a promise of it was rejected and nothing caught it'],
    ]);
    const orphan = withContainment(false, () => process.emit('uncaughtException', new Error('ours')));
    expect(orphan).toEqual([
      ['failed', 'ours', undefined],
      ['unattributed', 'ours'],
    ]);
  });

  it('should remove its listeners and give process.exit back when released', () => {
    const before = [process.listenerCount('uncaughtException'), process.exit];
    withContainment(true, () => {
      expect(process.listenerCount('uncaughtException')).toBe((before[0] as number) + 1);
    });
    expect([process.listenerCount('uncaughtException'), process.exit]).toEqual(before);
  });
});
