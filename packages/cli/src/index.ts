export { createProgram, VERSION } from './program.js';
export { Interrupt } from './runtime/interrupt.js';
export { type ShellOutput, TracefsShell } from './shell/tracefs-shell.js';
export { createTracedSession, type KernelImageFile, type TracedSession } from './tracing/traced-session.js';
