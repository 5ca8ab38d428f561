/**
 * Bits of `common_flags`, as Linux 5.17–6.12 define them (6.13 reuses 0x02 for NEED_RESCHED_LAZY).
 *
 * @see include/linux/trace_events.h enum trace_flag_type
 */
export const TraceFlag = Object.freeze({
  IRQS_OFF: 0x01,
  IRQS_NOSUPPORT: 0x02,
  NEED_RESCHED: 0x04,
  HARDIRQ: 0x08,
  SOFTIRQ: 0x10,
  PREEMPT_RESCHED: 0x20,
  NMI: 0x40,
  BH_OFF: 0x80,
} as const);

const HEX = '0123456789abcdef';

/**
 * The five latency-format characters of a trace line: irqs-off (`d`, `D` with BH also off, `b`, `X`),
 * need-resched (`N`, `n`, `p`), hardirq/softirq (`Z`, `z`, `H`, `h`, `s`), preempt depth (the low
 * nibble of `common_preempt_count`, hex) and migrate-disable depth (the high nibble); `.` for none.
 *
 * @see kernel/trace/trace_output.c trace_print_lat_fmt()
 * @example
 * tracePrintLatFmt(TraceFlag.IRQS_OFF, 1); // 'd..1.'
 */
export function tracePrintLatFmt(flags: number, preemptCount: number): string {
  const irqsOff = flags & TraceFlag.IRQS_OFF;
  const bhOff = flags & TraceFlag.BH_OFF;
  const a = irqsOff && bhOff ? 'D' : irqsOff ? 'd' : bhOff ? 'b' : flags & TraceFlag.IRQS_NOSUPPORT ? 'X' : '.';
  const resched = flags & (TraceFlag.NEED_RESCHED | TraceFlag.PREEMPT_RESCHED);
  const b =
    resched === (TraceFlag.NEED_RESCHED | TraceFlag.PREEMPT_RESCHED)
      ? 'N'
      : resched === TraceFlag.NEED_RESCHED
        ? 'n'
        : resched === TraceFlag.PREEMPT_RESCHED
          ? 'p'
          : '.';
  const nmi = flags & TraceFlag.NMI;
  const hard = flags & TraceFlag.HARDIRQ;
  const soft = flags & TraceFlag.SOFTIRQ;
  const c = nmi && hard ? 'Z' : nmi ? 'z' : hard && soft ? 'H' : hard ? 'h' : soft ? 's' : '.';
  const depth = preemptCount & 0xf;
  const migrate = (preemptCount >> 4) & 0xf;
  return a + b + c + (depth ? HEX[depth] : '.') + (migrate ? HEX[migrate] : '.');
}
