import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { CliError } from '../cli-error.js';
import { serveAnnounced } from './gdb-server.js';
import type { GdbTarget } from './protocol/gdb-target.js';

// No gdb connects in these tests: the target is never asked anything.
const target = {} as GdbTarget;

function announced(host: string, port: number, interrupt: { requested: boolean }, out: string[]) {
  return serveAnnounced({
    address: { host, port },
    target,
    interrupt,
    command: 'trace',
    imagePath: undefined,
    stopped: 'before the first instruction of cat',
    exposure: 'change the run',
    writeErr: (t) => out.push(t),
  });
}

describe(serveAnnounced, () => {
  it('should warn beyond the loopback, then say where it listens and how to connect', async () => {
    const out: string[] = [];
    const interrupt = { requested: false };
    const served = announced('0.0.0.0', 0, interrupt, out);
    await expect.poll(() => out.length).toBe(2);
    interrupt.requested = true;
    await expect(served).resolves.toBe('interrupted');
    expect(out[0]).toBe('int3: warning: the gdb stub listens on 0.0.0.0: anyone who reaches it can change the run\n');
    expect(out[1]).toMatch(
      /^int3: gdb stub on 0\.0\.0\.0:\d+, stopped before the first instruction of cat; connect with:\n {2}gdb .*-ex 'target remote 0\.0\.0\.0:\d+'\n$/,
    );
  });

  it("should make a port in use the command's usage error, saying nothing else", async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as { port: number }).port;
    const out: string[] = [];
    try {
      const error = await announced('127.0.0.1', port, { requested: false }, out).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CliError);
      expect(error).toMatchObject({
        kind: 'usage',
        command: 'trace',
        message: `cannot listen on 127.0.0.1:${port}: the address is in use`,
      });
      expect(out).toEqual([]);
    } finally {
      busy.close();
    }
  });
});
