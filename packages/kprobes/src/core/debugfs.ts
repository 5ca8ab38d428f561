import type { ProbeSite, ProbeState } from './probe-site.js';

/** `KPROBE_HASH_BITS`: the kernel's probe hash table has 64 buckets. */
const KPROBE_HASH_BITS = 6n;
/** `GOLDEN_RATIO_64`, the multiplier of `hash_64`. */
const GOLDEN_RATIO_64 = 0x61c8864680b583ebn;

/** `hash_ptr(addr, KPROBE_HASH_BITS)`: the bucket a probe address hashes to. */
export function kprobeHashBucket(addr: bigint): number {
  return Number(BigInt.asUintN(64, addr * GOLDEN_RATIO_64) >> (64n - KPROBE_HASH_BITS));
}

/**
 * `/sys/kernel/debug/kprobes/list`: one line per probe, in hash-table order (bucket 0..63, newest
 * first within a bucket), each child of an aggregate on its own line with the aggregate's address:
 * `%px  %s  %s+0x%x  %s ` then `[GONE]`, `[DISABLED]`, `[OPTIMIZED]`, `[FTRACE]`.
 *
 * @see kernel/kprobes.c show_kprobe_addr(), report_probe()
 */
export function kprobesList(k: { sites(): Iterable<ProbeSite> }): string {
  const buckets: ProbeSite[][] = Array.from({ length: 64 }, () => []);
  for (const site of k.sites()) buckets[kprobeHashBucket(site.addr)].unshift(site);
  const lines: string[] = [];
  for (const bucket of buckets) {
    for (const site of bucket) {
      for (const child of site.children) {
        const addr = site.addr.toString(16).padStart(16, '0');
        const where = `${site.symbol}  ${site.module ?? ' '} `;
        const flags = kprobeListFlags(child)
          .map((f) => `[${f}]`)
          .join('');
        lines.push(`${addr}  ${child.kind}  ${where}${flags}\n`);
      }
    }
  }
  return lines.join('');
}

/**
 * The flags `kprobes/list` prints after a probe, in the kernel's order: `GONE`; `DISABLED` (never with
 * GONE); `OPTIMIZED` (the aggregate's).
 * @see kernel/kprobes.c report_probe()
 */
export function kprobeListFlags(probe: ProbeState): ('GONE' | 'DISABLED' | 'OPTIMIZED')[] {
  const flags: ('GONE' | 'DISABLED' | 'OPTIMIZED')[] = [];
  if (probe.gone) flags.push('GONE');
  else if (probe.disabled) flags.push('DISABLED');
  if (probe.site.optimized) flags.push('OPTIMIZED');
  return flags;
}

/** `/sys/kernel/debug/kprobes/enabled`: `1\n` while probes are armed. */
export function kprobesEnabledText(k: { readonly allArmed: boolean }): string {
  return k.allArmed ? '1\n' : '0\n';
}

/**
 * Writing `enabled`: the first character decides (`1`/`y`/`Y` arm, `0`/`n`/`N` disarm); anything else
 * is `-EINVAL` (returned as false).
 * @see kernel/kprobes.c write_enabled_file_bool()
 */
export function writeKprobesEnabled(k: { setAllArmed(on: boolean): void }, text: string): boolean {
  const c = text[0];
  if (c === '1' || c === 'y' || c === 'Y') k.setAllArmed(true);
  else if (c === '0' || c === 'n' || c === 'N') k.setAllArmed(false);
  else return false;
  return true;
}
