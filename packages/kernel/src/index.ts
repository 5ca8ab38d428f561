export { SYSV_ARG_PT_REGS, SYSV_ARG_REGS } from './arch/x86/calling-convention.js';
export {
  isPtRegName,
  PT_REGS_GPR,
  PT_REGS_NAMES,
  PT_REGS_OFFSET,
  PT_REGS_SIZE,
  type PtRegName,
} from './arch/x86/pt-regs-layout.js';
export { type KernelImage, type KernelSymbols, REQUIRED_KERNEL_SYMBOLS } from './boot/kernel-image.js';
export { Errno, type ErrnoName, errnoSubset, strerror } from './errno.js';
export type { ConsoleLog } from './events/console-log.js';
export type { DieEvent, EventAt, KernelEvent, MachineEvent, PrintkEvent, TaskEvent } from './events/kernel-event.js';
export type { MachineStreams } from './events/machine-streams.js';
export {
  Kallsyms,
  type Ksym,
  type KsymInput,
  type KsymKind,
  type KsymLocation,
} from './kallsyms/kallsyms.js';
export { KernelError, type KernelErrorCode } from './kernel-error.js';
export { MAX_CPUS, MAX_MODULE_BYTES, MAX_QUANTUM } from './log/kernel-log-schemas.js';
export { decodeLog, encodeLogLine, LOG_MAGIC, LOG_VERSION, type LogEntry, logHeaderLine } from './log/log-codec.js';
export {
  arrayOf,
  boolean,
  checkEntry,
  type EntrySchema,
  type FieldRule,
  integer,
  text,
} from './log/log-schema.js';
export type { LogSink } from './log/log-sink.js';
export { type LogEnd, type ValidLog, validateLog } from './log/validate-log.js';
export { ARG_MAX, checkExecArgs } from './machine/check-exec-args.js';
export type { StepHook } from './machine/cpu-stepper.js';
export { GuestCallError, type GuestCallOptions } from './machine/guest-caller.js';
export {
  HOST_CALL_JUMPED,
  type HostCallContext,
  type HostCallHandler,
  type HostCallResult,
  type HostGate,
} from './machine/host-calls.js';
export type {
  DieNotifierChain,
  ExceptionTable,
  GuestCalls,
  HostCallTable,
  KernelApi,
  KernelMemoryApi,
  PerCpuAreas,
} from './machine/kernel-api.js';
export {
  type ConsoleView,
  type ConsoleWrite,
  Machine,
  type MachineOptions,
  type RunOptions,
  type RunOutcome,
} from './machine/machine.js';
export { KernelLayout } from './mm/kernel-layout.js';
export type { TextPoke } from './mm/kernel-memory.js';
export { KERNEL_CFLAGS } from './modules/kernel-cflags.js';
export {
  type LoadedModule,
  ModuleLoader,
  type ModuleNotifier,
  ModuleState,
  type ModuleStateValue,
} from './modules/module-loader.js';
export {
  LogLevel,
  type PrintkBuffer,
  type PrintkRecord,
  type PrintkView,
} from './printk/printk-buffer.js';
export {
  IMAGE_DIR,
  readImageFile,
  readSampleImage,
  SAMPLE_IMAGE_PATH,
  sampleProgram,
  WORKLOADS,
} from './sample-image.js';
export type { SchedulerView } from './sched/scheduler.js';
export type { Task, TaskChanges, TaskState, Wait } from './sched/task.js';
export type { TaskRegs } from './sched/task-regs.js';
export {
  DEFAULT_SNAPSHOT_EVERY_NS,
  type InputHandler,
  incompleteLogMessage,
  type RunConfig,
  type SeekStats,
  Session,
  type SessionOptions,
} from './session/session.js';
export {
  DEFAULT_MAX_SNAPSHOTS,
  type InputPosition,
  type SessionSnapshot,
  type SnapshotTimeline,
} from './session/snapshot-timeline.js';
export { stateHash } from './session/state-hash.js';
export type { CpuSnapshot, MachineSnapshot } from './snapshot/machine-snapshot.js';
export type { SnapshotProvider } from './snapshot/snapshot-provider.js';
export type { PageImage, SpaceImage } from './snapshot/space-image.js';
export { formatTimestamp, HZ, NS_PER_INSTRUCTION, TICK_NS } from './time/virtual-time.js';
export {
  type DieArgs,
  type DieNotifier,
  DieVal,
  type DieValue,
  NotifyResult,
  type NotifyResultValue,
} from './traps/die-chain.js';
export { PtRegs } from './traps/pt-regs.js';
export { Signal } from './traps/trap-router.js';
