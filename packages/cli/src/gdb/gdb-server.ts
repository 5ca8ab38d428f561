import { createServer, type Socket } from 'node:net';
import { KernelError } from '@int3/kernel';
import { CliError } from '../cli-error.js';
import { gdbCommandLine } from './gdb-command.js';
import { type GdbListenAddress, isLoopback } from './gdb-listen-address.js';
import { GdbStub, type StubEnd } from './protocol/gdb-stub.js';
import type { GdbTarget } from './protocol/gdb-target.js';

/** How a gdb session is served. */
export interface ServeGdbOptions {
  readonly address: GdbListenAddress;
  readonly target: GdbTarget;
  /** Called once the server listens, with the port (the one chosen for port 0). */
  readonly listening: (port: number) => void;
  /** A stop signal to the stub itself (Ctrl-C in its terminal) ends the session: looked at every 100 ms. */
  readonly interrupt?: { readonly requested: boolean };
}

/** How long between two looks at {@link ServeGdbOptions.interrupt}. */
const INTERRUPT_POLL_MS = 100;

/** Why serving could not start: the address is in use, not local, … (a user's mistake). */
export class GdbListenError extends Error {}

/**
 * Listens for gdb on `address` and serves one gdb at a time with a {@link GdbStub} over `target`,
 * until a gdb detaches (`D`) or kills (`k`); a connection that drops without either lets the next
 * gdb connect. Resolves with how the session ended (`interrupted`: a stop signal to the stub).
 */
export function serveGdb(options: ServeGdbOptions): Promise<StubEnd | 'interrupted'> {
  return new Promise<StubEnd | 'interrupted'>((resolve, reject) => {
    let busy: Socket | undefined;
    const poll = setInterval(() => {
      if (!options.interrupt?.requested) return;
      clearInterval(poll);
      busy?.destroy();
      server.close();
      resolve('interrupted');
    }, INTERRUPT_POLL_MS);

    const server = createServer((socket) => {
      if (busy) {
        socket.end();
        return;
      }
      busy = socket;
      socket.setNoDelay(true);
      const stub = new GdbStub(options.target, {
        write: (data) => socket.write(data, 'latin1'),
        end: (how) => {
          socket.end();
          server.close();
          resolve(how);
        },
        fail: (error) => {
          socket.destroy();
          server.close();
          reject(error);
        },
      });
      socket.on('data', (chunk) => stub.receive(chunk));
      socket.on('error', () => socket.destroy());
      socket.on('close', () => {
        if (busy === socket) busy = undefined;
      });
    });
    // Every way the session ends closes the server; a listen that failed never opened it.
    server.on('close', () => clearInterval(poll));
    server.on('error', (error: NodeJS.ErrnoException) => {
      clearInterval(poll);
      const why =
        error.code === 'EADDRINUSE'
          ? 'the address is in use'
          : error.code === 'EADDRNOTAVAIL'
            ? 'no such local address'
            : error.message;
      reject(new GdbListenError(`cannot listen on ${options.address.host}:${options.address.port}: ${why}`));
    });
    server.listen(options.address.port, options.address.host, () => {
      const a = server.address();
      options.listening(typeof a === 'object' && a !== null ? a.port : options.address.port);
    });
  });
}

/** What {@link serveAnnounced} says and where. */
export interface AnnouncedServe {
  readonly address: GdbListenAddress;
  readonly target: GdbTarget;
  readonly interrupt: { readonly requested: boolean };
  readonly command: string;
  /** The image as the user names it, for the printed gdb command. */
  readonly imagePath: string | undefined;
  /** Where the machine stopped, for the listening line: `before the first instruction of cat`. */
  readonly stopped: string;
  /** What anyone reaching a non-local stub could do: `change the run`, `read the run`. */
  readonly exposure: string;
  readonly writeErr: (text: string) => void;
}

/**
 * {@link serveGdb} as the commands start it: a warning when it listens beyond the loopback, then
 * the line saying where it listens and the gdb command to connect; a listen that fails is the
 * user's mistake (`command`'s usage error), a kernel error while serving a failure.
 */
export async function serveAnnounced(o: AnnouncedServe): Promise<StubEnd | 'interrupted'> {
  const { address } = o;
  if (!isLoopback(address.host)) {
    o.writeErr(`int3: warning: the gdb stub listens on ${address.host}: anyone who reaches it can ${o.exposure}\n`);
  }
  try {
    return await serveGdb({
      address,
      target: o.target,
      interrupt: o.interrupt,
      listening: (port) =>
        o.writeErr(
          `int3: gdb stub on ${address.host}:${port}, stopped ${o.stopped}; connect with:\n  ${gdbCommandLine(o.imagePath, address.host, port)}\n`,
        ),
    });
  } catch (error) {
    if (error instanceof GdbListenError) throw new CliError('usage', error.message, o.command);
    if (error instanceof KernelError) throw new CliError('failure', `gdb stub: ${error.message}`);
    throw error;
  }
}
