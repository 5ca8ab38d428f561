import { toBig } from '@int3/cpu';
import type { ProbeSite } from './probe-site.js';

/**
 * The probe sites by address (the kernel's `kprobe_table` hash), with a second index by the address's
 * low int32 half for the trap path, which has `rip` as the CPU keeps it (two int32 halves) and must not
 * make a bigint per hit.
 *
 * @see kernel/kprobes.c kprobe_table, get_kprobe()
 */
export class ProbeTable {
  private readonly byAddr = new Map<bigint, ProbeSite>();
  /** One site per low half; another site with the same low half is found through `byAddr`. */
  private readonly byLow = new Map<number, ProbeSite>();

  /** The site at `addr` (`get_kprobe`). */
  get(addr: bigint): ProbeSite | undefined {
    return this.byAddr.get(addr);
  }

  /** {@link get} by the address's int32 halves (a bigint is made only when two sites share the low half). */
  getHalves(lo: number, hi: number): ProbeSite | undefined {
    const site = this.byLow.get(lo | 0);
    if (site === undefined) return undefined;
    if (site.addrHi === (hi | 0)) return site;
    return this.byAddr.get(toBig(lo, hi));
  }

  add(site: ProbeSite): void {
    this.byAddr.set(site.addr, site);
    if (!this.byLow.has(site.addrLo)) this.byLow.set(site.addrLo, site);
  }

  remove(site: ProbeSite): void {
    this.byAddr.delete(site.addr);
    if (this.byLow.get(site.addrLo) !== site) return;
    this.byLow.delete(site.addrLo);
    for (const other of this.byAddr.values()) {
      if (other.addrLo === site.addrLo) {
        this.byLow.set(other.addrLo, other);
        break;
      }
    }
  }

  /** Every site. */
  values(): IterableIterator<ProbeSite> {
    return this.byAddr.values();
  }
}
