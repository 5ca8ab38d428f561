import { ModuleState } from '@int3/kernel';
import { KprobeError } from '../kprobe-error.js';
import type { Blacklist } from './blacklist.js';
import type { Kprobe } from './kprobe.js';
import type { KprobesHost } from './kprobes-host.js';

/**
 * `_kprobe_addr`: the address from `symbolName` + `offset`, or `addr` + `offset`. Both or neither of
 * `symbolName`/`addr` → EINVAL; an unknown symbol → ENOENT.
 * @see kernel/kprobes.c _kprobe_addr()
 */
export function kprobeAddr(m: Pick<KprobesHost, 'kallsyms'>, p: Kprobe): bigint {
  const offset = BigInt(p.offset ?? 0);
  if ((p.symbolName !== undefined) === (p.addr !== undefined)) {
    throw new KprobeError('EINVAL', 'specify either symbolName or addr, not both nor neither');
  }
  if (p.symbolName !== undefined) {
    const sym = m.kallsyms.lookupName(p.symbolName);
    if (!sym) throw new KprobeError('ENOENT', `unknown symbol ${p.symbolName}`);
    return sym.address + offset;
  }
  return p.addr! + offset;
}

/**
 * `check_kprobe_address_safe` + the arch boundary check: kernel or module text (EINVAL), not
 * blacklisted (EINVAL), not in a module going away (ENOENT), then `canProbe` (on an instruction
 * boundary, not an exception instruction).
 * @see kernel/kprobes.c check_kprobe_address_safe()
 */
export function checkKprobeAddressSafe(
  m: Pick<KprobesHost, 'kallsyms' | 'symbols' | 'modules'>,
  blacklist: Blacklist,
  addr: bigint,
  canProbe: (addr: bigint) => void,
): void {
  const where = m.kallsyms.format(addr);
  const kernelText = addr >= m.symbols._stext && addr < m.symbols._etext;
  const mod = kernelText ? undefined : m.modules.moduleAt(addr);
  if (!kernelText && !mod) throw new KprobeError('EINVAL', `${where} is not kernel or module text`);
  const black = blacklist.find(addr);
  if (black) throw new KprobeError('EINVAL', `${where} is blacklisted (${black.name})`);
  if (mod && mod.state === ModuleState.GOING) throw new KprobeError('ENOENT', `module ${mod.name} is going away`);
  canProbe(addr);
}
