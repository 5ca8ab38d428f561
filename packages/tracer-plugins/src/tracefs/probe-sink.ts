import type { TraceBuffer } from '../ring-buffer/trace-buffer.js';
import type { MachineView } from '../view/machine-view.js';
import type { MachineFetchContext } from './machine-fetch-context.js';

/** Where probe hits go: the view of the machine they ran on, one fetch context per CPU, the buffer, `saved_cmdlines`. */
export interface ProbeSink {
  readonly view: MachineView;
  /** Indexed by CPU. */
  readonly contexts: readonly MachineFetchContext[];
  readonly buffer: TraceBuffer;
  /** pid → comm of every task that hit a probe (the kernel's `saved_cmdlines`). @see trace_save_cmdline() */
  readonly cmdlines: Map<number, string>;
}
