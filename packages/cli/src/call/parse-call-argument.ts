import type { CallArgument } from '@int3/cpu';
import { CliError } from '../cli-error.js';

/** The largest `buf:N` accepted (16 MiB). */
export const MAX_BUF_SIZE = 16 * 1024 * 1024;

const INTEGER = /^([+-]?)(0x[0-9a-f]+|[0-9]+)$/i;
const FORMS = 'expected a decimal or 0x hex integer, str:TEXT or buf:N';

/**
 * Parses one `int3 call` argument: decimal, negative decimal (two's complement), `0x` hex, `str:TEXT`
 * (a NUL-terminated copy in guest memory) or `buf:N` (N zero bytes). Throws a usage {@link CliError}.
 *
 * @example
 * parseCallArgument('-1');        // { kind: 'int', value: 0xffffffffffffffffn }
 * parseCallArgument('str:hello'); // { kind: 'str', text: 'hello' }
 */
export function parseCallArgument(text: string): CallArgument {
  if (text.startsWith('str:')) return { kind: 'str', text: text.slice(4) };
  if (text.startsWith('buf:')) {
    const size = parseInteger(text.slice(4));
    if (size === undefined || size < 0n) throw usage(`bad argument '${text}': buf:N needs a byte count N`);
    if (size > BigInt(MAX_BUF_SIZE)) {
      throw usage(`bad argument '${text}': buf:N is limited to ${MAX_BUF_SIZE} bytes`);
    }
    return { kind: 'buf', size: Number(size) };
  }
  const value = parseInteger(text);
  if (value === undefined) throw usage(`bad argument '${text}': ${FORMS}`);
  if (value >= 1n << 64n || value < -(1n << 63n)) {
    throw usage(`bad argument '${text}': does not fit in 64 bits`);
  }
  return { kind: 'int', value: BigInt.asUintN(64, value) };
}

/**
 * Parses a non-negative count such as `--max-insns` (decimal, `0x` hex or `1e9`), at most 2^53.
 *
 * @example
 * parseCount('1e6', '--max-insns'); // 1000000
 */
export function parseCount(text: string, what: string): number {
  const exp = /^([0-9]+)e([0-9]+)$/i.exec(text);
  const value = exp ? BigInt(exp[1]) * 10n ** BigInt(exp[2]) : parseInteger(text);
  if (value === undefined || value <= 0n || value > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw usage(`bad ${what} '${text}': expected a positive integer (e.g. 1000000, 0x1000 or 1e9)`);
  }
  return Number(value);
}

function parseInteger(text: string): bigint | undefined {
  const m = INTEGER.exec(text);
  if (!m) return undefined;
  const magnitude = BigInt(m[2]);
  return m[1] === '-' ? -magnitude : magnitude;
}

function usage(message: string): CliError {
  return new CliError('usage', message, 'call');
}
