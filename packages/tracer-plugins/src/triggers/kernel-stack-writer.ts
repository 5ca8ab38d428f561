import type { TraceBuffer } from '../ring-buffer/trace-buffer.js';
import type { TriggerHit } from './event-trigger.js';
import { TRACE_STACK } from './kernel-stack-event.js';
import { type UnwindView, unwindFramePointers } from './unwind-frame-pointers.js';

/** Offset of `caller[]` in a stack entry: the 8-byte header, `int size`, 4 bytes of padding. */
export const STACK_CALLER_OFFSET = 16;

/**
 * Writes `<stack trace>` entries (`TRACE_STACK`) into the trace buffer: the call chain at a hit,
 * unwound by frame pointers, with the context (flags, preempt count, pid) of the event that fired the
 * trigger, on that CPU at that time. Dropped, as the kernel drops it, when tracing is off.
 *
 * @see kernel/trace/trace.c __ftrace_trace_stack(), __trace_stack()
 * @example
 * writer.write(hit);
 */
export class KernelStackWriter {
  constructor(
    private readonly view: UnwindView,
    private readonly buffer: TraceBuffer,
  ) {}

  write(hit: TriggerHit): void {
    if (!this.buffer.tracingOn) return;
    const calls = unwindFramePointers(this.view, hit.regs, hit.probeAddr);
    const ev = this.buffer.reserve(hit.cpu, STACK_CALLER_OFFSET + 8 * calls.length, hit.ts);
    if (ev === undefined) return;
    const v = ev.view;
    const o = ev.offset;
    v.setUint16(o, TRACE_STACK, true);
    v.setUint8(o + 2, hit.flags);
    v.setUint8(o + 3, hit.preemptCount);
    v.setInt32(o + 4, hit.pid, true);
    v.setInt32(o + 8, calls.length, true);
    v.setInt32(o + 12, 0, true);
    for (let i = 0; i < calls.length; i++) v.setBigUint64(o + STACK_CALLER_OFFSET + 8 * i, calls[i], true);
    this.buffer.commit(hit.cpu);
  }
}
