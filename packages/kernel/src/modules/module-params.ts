import type { AddressSpace } from '@int3/cpu';
import { KernelError } from '../kernel-error.js';

/** Size of `struct int3_module_param` (image/include/linux/module.h): name, addr, kind, size. */
export const MODULE_PARAM_SIZE = 24;

/** `kind` of a parameter, as module.h's `__INT3_PARAM_<type>`. */
const KINDS: Record<number, { readonly name: string; readonly bytes: number; readonly signed: boolean }> = {
  1: { name: 'bool', bytes: 1, signed: false },
  2: { name: 'int', bytes: 4, signed: true },
  3: { name: 'uint', bytes: 4, signed: false },
  4: { name: 'long', bytes: 8, signed: true },
  5: { name: 'ulong', bytes: 8, signed: false },
  6: { name: 'short', bytes: 2, signed: true },
  7: { name: 'ushort', bytes: 2, signed: false },
  10: { name: 'byte', bytes: 1, signed: false },
};
const CHARP = 8;
const STRING = 9;

/** What {@link setModuleParams} needs of the kernel: memory and a place for `charp` copies. */
export interface ModuleParamsHost {
  readonly space: AddressSpace;
  /** Maps `size` zeroed bytes for a `charp` parameter's copy; freed with the module. */
  allocString(size: number): bigint;
  /** printk at `level`. */
  log(level: number, text: string): void;
}

/**
 * Sets a module's parameters from `insmod foo.ko name=value…` before its init runs: each `name=value`
 * (a bare `name` is `name=1` for a bool) is matched against the module's `__param` table and stored as
 * the parameter's type says. An unknown name is ignored with a warning, as Linux does; a value the type
 * cannot hold fails the load with -EINVAL, a string longer than its buffer with -ENOSPC.
 *
 * @see kernel/params.c parse_args(), parse_one(), param_set_int(), param_copystring()
 */
export function setModuleParams(
  host: ModuleParamsHost,
  module: string,
  table: { readonly address: bigint; readonly size: number } | undefined,
  args: readonly string[],
): void {
  const params = new Map<string, { kind: number; addr: bigint; size: number }>();
  for (let at = 0; table !== undefined && at + MODULE_PARAM_SIZE <= table.size; at += MODULE_PARAM_SIZE) {
    const p = table.address + BigInt(at);
    const name = host.space.readCString(host.space.readU64(p), 256);
    params.set(name, {
      addr: host.space.readU64(p + 8n),
      kind: host.space.readU32(p + 16n),
      size: host.space.readU32(p + 20n),
    });
  }
  for (const arg of args) {
    const eq = arg.indexOf('=');
    const name = (eq < 0 ? arg : arg.slice(0, eq)).replaceAll('-', '_');
    const value = eq < 0 ? undefined : arg.slice(eq + 1);
    const p = params.get(name);
    if (p === undefined) {
      host.log(4, `${module}: unknown parameter '${name}' ignored`);
      continue;
    }
    const invalid = () => new KernelError('EINVAL', `${module}: '${value ?? ''}' invalid for parameter '${name}'`);
    if (p.kind === STRING || p.kind === CHARP) {
      if (value === undefined) throw invalid();
      const bytes = new TextEncoder().encode(value);
      if (p.kind === STRING) {
        if (bytes.length + 1 > p.size) {
          throw new KernelError('ENOSPC', `${name}: string doesn't fit in ${p.size - 1} chars.`);
        }
        host.space.write(p.addr, Uint8Array.from([...bytes, 0]));
      } else {
        const copy = host.allocString(bytes.length + 1);
        host.space.write(copy, Uint8Array.from([...bytes, 0]));
        host.space.writeU64(p.addr, copy);
      }
      continue;
    }
    const kind = KINDS[p.kind];
    if (kind === undefined) throw invalid();
    const n = kind.name === 'bool' ? parseBool(value) : parseInteger(value, kind.bytes, kind.signed);
    if (n === undefined) throw invalid();
    const bytes = new Uint8Array(kind.bytes);
    for (let i = 0; i < kind.bytes; i++) bytes[i] = Number((BigInt.asUintN(64, n) >> BigInt(8 * i)) & 0xffn);
    host.space.write(p.addr, bytes);
  }
}

/** `param_set_bool`: y/Y/1/n/N/0 (or nothing: true). @see lib/kstrtox.c kstrtobool() */
function parseBool(value: string | undefined): bigint | undefined {
  if (value === undefined || value === '') return 1n;
  if (/^[yY1]/.test(value) || /^on/i.test(value)) return 1n;
  if (/^[nN0]/.test(value) || /^of/i.test(value)) return 0n;
  return undefined;
}

/** kstrtol/kstrtoul with base 0 (0x hex, 0 octal), range-checked for the parameter's width. */
function parseInteger(value: string | undefined, bytes: number, signed: boolean): bigint | undefined {
  if (value === undefined) return undefined;
  const m = /^([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)\n?$/.exec(value);
  if (!m || (m[1] === '-' && !signed)) return undefined;
  const digits = m[2];
  const magnitude = /^0[xX]/.test(digits)
    ? BigInt(digits)
    : digits.length > 1 && digits[0] === '0'
      ? BigInt(`0o${digits.slice(1)}`)
      : BigInt(digits);
  const n = m[1] === '-' ? -magnitude : magnitude;
  const bits = BigInt(8 * bytes);
  const lo = signed ? -(1n << (bits - 1n)) : 0n;
  const hi = signed ? (1n << (bits - 1n)) - 1n : (1n << bits) - 1n;
  return n < lo || n > hi ? undefined : n;
}
