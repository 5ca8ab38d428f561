import type { Cpu, TrapEvent } from '@int3/cpu';
import { merge, type Observable, Subject } from 'rxjs';
import type { Clock } from '../machine/cpu-clocks.js';
import type { PrintkBuffer } from '../printk/printk-buffer.js';
import { DIE_NAMES } from '../traps/die-chain.js';
import { ConsoleLog, type ConsoleWrite, DEFAULT_CONSOLE_CHARS } from './console-log.js';
import type { DieEvent, KernelEvent, MachineEvent, PrintkEvent, TaskEvent } from './kernel-event.js';

export type { ConsoleWrite } from './console-log.js';

const decoder = new TextDecoder();

/**
 * Where the kernel's parts publish what happened: one subject per event family, each emitting only
 * when someone listens (a frozen event per emission), printk lines stored before they are published,
 * and `/dev/console`'s writes kept in order.
 */
export class MachineEvents {
  readonly traps$: Observable<TrapEvent>;
  readonly dies$: Observable<DieEvent>;
  readonly tasks$: Observable<TaskEvent>;
  readonly printk$: Observable<PrintkEvent>;
  readonly machine$: Observable<MachineEvent>;
  readonly console$: Observable<ConsoleWrite>;
  readonly events$: Observable<KernelEvent>;
  /** What was written to `/dev/console`: the latest writes, in order, with a digest of all. */
  readonly console: ConsoleLog;

  private readonly dieSubject = new Subject<DieEvent>();
  private readonly taskSubject = new Subject<TaskEvent>();
  private readonly printkSubject = new Subject<PrintkEvent>();
  private readonly machineSubject = new Subject<MachineEvent>();
  private readonly consoleSubject = new Subject<ConsoleWrite>();

  constructor(
    cpus: readonly Cpu[],
    private readonly clock: Clock,
    private readonly printk: Pick<PrintkBuffer, 'store'>,
    consoleChars = DEFAULT_CONSOLE_CHARS,
  ) {
    this.console = new ConsoleLog(consoleChars);
    this.traps$ = merge(...cpus.map((c) => c.traps$));
    this.dies$ = this.dieSubject.asObservable();
    this.tasks$ = this.taskSubject.asObservable();
    this.printk$ = this.printkSubject.asObservable();
    this.machine$ = this.machineSubject.asObservable();
    this.console$ = this.consoleSubject.asObservable();
    this.events$ = merge(this.traps$, this.dies$, this.tasks$, this.printk$, this.machine$);
  }

  /** Logs a kernel message (printk) from the host side. */
  log(cpu: number, level: number, text: string): void {
    for (const rec of this.printk.store(`\x01${level}${text}\n`, this.clock.clock(cpu), cpu)) {
      if (this.printkSubject.observed) {
        this.printkSubject.next(
          Object.freeze({ type: 'printk', at: rec.timestampNs, cpu, level: rec.level, text: rec.text }),
        );
      }
    }
  }

  /** Appends to `/dev/console` on behalf of task `pid` running on `cpu`. */
  writeConsole(cpu: number, pid: number, bytes: Uint8Array): void {
    const write: ConsoleWrite = Object.freeze({ at: this.clock.clock(cpu), cpu, pid, text: decoder.decode(bytes) });
    this.console.push(write);
    if (this.consoleSubject.observed) this.consoleSubject.next(write);
  }

  /** True when `dies$` (or `events$`) has subscribers. */
  get diesObserved(): boolean {
    return this.dieSubject.observed;
  }

  /** Publishes a die notification (only when someone listens). */
  emitDie(cpu: number, val: number, trapnr: number, rip: bigint, stopped: boolean): void {
    if (!this.dieSubject.observed) return;
    this.dieSubject.next(
      Object.freeze({
        type: 'die:notified',
        at: this.clock.clock(cpu),
        cpu,
        val: DIE_NAMES[val] ?? String(val),
        trapnr,
        rip,
        stopped,
      }),
    );
  }

  /** Publishes a task event. */
  emitTask(e: TaskEvent): void {
    if (this.taskSubject.observed) this.taskSubject.next(Object.freeze(e));
  }

  /** Publishes a machine event. */
  emitMachine(e: MachineEvent): void {
    if (this.machineSubject.observed) this.machineSubject.next(Object.freeze(e));
  }
}
