export { type DisassemblyRange, formatDisassembly } from './inspect/format-disassembly.js';
export { countInterruptions, type HitStep, hitSteps, type MechanismEvent } from './inspect/hit-steps.js';
export { createProgram, VERSION } from './program.js';
export type { CliEnvironment } from './runtime/cli-environment.js';
export { INTERRUPTIBLE_COMMANDS, Interrupt, type StopSignal } from './runtime/interrupt.js';
export { type ShellOutput, TracefsShell } from './shell/tracefs-shell.js';
export { type ReplayTraceOptions, type ReplayTraceResult, replayTrace } from './tracing/replay-trace.js';
export {
  createTracedSession,
  type KernelImageFile,
  type TracedSession,
  type TracedSessionOptions,
} from './tracing/traced-session.js';
