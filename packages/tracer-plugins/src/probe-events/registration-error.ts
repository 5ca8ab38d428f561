import type { ProbeDefinition, ProbeResolver } from './probe-definition.js';
import type { ProbeErrnoName } from './probe-errno.js';
import { ProbeParseError } from './probe-parse-error.js';

/**
 * Maps a failed kprobe registration to the write's outcome: `undefined` when the probe is accepted
 * anyway (a `MOD:SYM` probe whose module is not loaded yet waits for it), else the error, logged at the
 * probe place as BAD_INSN_BNDRY (-EILSEQ), BAD_PROBE_ADDR (-ENOENT) or FAIL_REG_PROBE; -ENOMEM and
 * -EEXIST are not logged.
 *
 * @see kernel/trace/trace_kprobe.c __trace_kprobe_create(), __register_trace_kprobe()
 */
export function registrationError(
  def: ProbeDefinition,
  errno: ProbeErrnoName,
  resolver: ProbeResolver,
): ProbeParseError | undefined {
  if (errno === 'ENOENT' && def.module !== undefined && !resolver.isModuleLoaded(def.module)) return undefined;
  const site = { index: 1, offset: 0 };
  if (errno === 'EILSEQ') return new ProbeParseError('BAD_INSN_BNDRY', errno, def.argv, site);
  if (errno === 'ENOENT') return new ProbeParseError('BAD_PROBE_ADDR', errno, def.argv, site);
  if (errno === 'ENOMEM' || errno === 'EEXIST') return new ProbeParseError(undefined, errno, def.argv, site);
  return new ProbeParseError('FAIL_REG_PROBE', errno, def.argv, site);
}
