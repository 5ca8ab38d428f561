import type { StopEvent } from './gdb-target.js';

/**
 * The stop reply for a stop: `T05thread:1;swbreak:;`, `T05watch:addr;`, `T05replaylog:begin;` (gdb
 * then says "No more reverse-execution history"), or `W00` when the run is over.
 *
 * @see gdb's manual, "Stop Reply Packets"
 */
export function stopReply(stop: StopEvent): string {
  if (stop.kind === 'exited') return `W${(stop.status & 0xff).toString(16).padStart(2, '0')}`;
  const signal = (stop.signal ?? 5).toString(16).padStart(2, '0');
  let reason = '';
  const r = stop.reason;
  if (r === undefined) reason = '';
  else if (r.type === 'replaylog') reason = `replaylog:${r.which};`;
  else if ('address' in r) reason = `${r.type}:${r.address.toString(16)};`;
  else reason = `${r.type}:;`;
  return `T${signal}thread:${stop.thread.toString(16)};${reason}`;
}
