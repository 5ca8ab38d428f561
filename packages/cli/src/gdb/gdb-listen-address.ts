/** Where `--gdb` listens. */
export interface GdbListenAddress {
  readonly host: string;
  readonly port: number;
}

/**
 * Parses `--gdb [HOST:]PORT` (`1234`, `:1234`, `localhost:1234`, `[::1]:1234`); 127.0.0.1 when no
 * host is given, port 0 for any free port. Undefined when it is not that.
 */
export function parseGdbListenAddress(text: string): GdbListenAddress | undefined {
  const m = /^(?:(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]*):)?(\d{1,5})$/.exec(text);
  if (!m) return undefined;
  const port = Number(m[2]);
  if (port > 65535) return undefined;
  const host = m[1] === undefined || m[1] === '' ? '127.0.0.1' : m[1].replace(/^\[(.*)\]$/, '$1');
  return { host, port };
}

/** True for an address only this machine reaches. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}
