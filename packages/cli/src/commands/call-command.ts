import { ElfError, type GuestCall, type GuestCallRun, MemoryError, startGuestCall } from '@int3/cpu';
import { jsonLine, TraceJsonLines } from '@int3/tracer-plugins';
import type { Command } from 'commander';
import { callKernelFunction, resolveKernelFunction } from '../call/call-kernel-function.js';
import { describeStop } from '../call/describe-stop.js';
import { loadImage } from '../call/load-image.js';
import { parseCallArgument, parseCount } from '../call/parse-call-argument.js';
import { resolveFunction } from '../call/resolve-function.js';
import { CliError } from '../cli-error.js';
import { CliTokens } from '../container/cli-tokens.js';
import { createCliContainer } from '../container/create-cli-container.js';
import { environmentOf } from '../runtime/cli-environment.js';
import { interruptedBy, yieldForSignal } from '../runtime/interrupt.js';
import { defineEvents } from '../tracing/run-trace.js';
import { createTracedSession, readKernelImage, type TracedSession } from '../tracing/traced-session.js';
import { writeOut } from '../write-out.js';
import { CommonOptions } from './common-options.js';

const EXAMPLE = `
Arguments: decimal (42, -1 as two's complement), 0x hex, str:TEXT (pointer to a NUL-terminated copy),
buf:N (pointer to N zero bytes). Up to six, passed in rdi, rsi, rdx, rcx, r8, r9; after --, an
argument is never read as an option (int3 call f -- -0x10).

With -e, the function runs on the booted sample kernel: a kernel function, or with --image a function
of that ELF, linked beside the kernel as a module named after the file (link a freestanding image in the
kernel text mapping clear of the kernel, e.g. -Wl,-Ttext=0xffffffff90000000). The kprobe events are
defined and enabled for the call, and their trace lines are printed before the return: line. With
--json, "traps" counts the kprobe traps: a hit single-stepped out of line takes a #BP and a #DB, a
boosted one (its copy jumps back by itself) a #BP alone, a jump-optimized one none.

Examples:
  $ int3 call div_s64 -100 7
  return: 18446744073709551602
  $ int3 call --json hash_crc32 str:123456789 9
  {"return":"3421780262","instructions":646}
  $ int3 call -e 'p:len strlen s=+0(%di):string' strlen str:hello
          <idle>-0       [000] d....     0.000009: len: (strlen+0x0/0x30) s="hello"
  return: 5
  $ int3 call --image my.elf -e 'r:t myfunc ret=$retval' myfunc 3

Exit status: 0 returned, 1 guest fault or --max-insns exhausted, 2 bad argument or image, 130/143/129
stopped by SIGINT/SIGTERM/SIGHUP (at the next slice of 20 M instructions).`;

/** Options of `int3 call`. */
interface CallOptions {
  image?: string;
  json?: boolean;
  maxInsns: string;
  event?: string[];
}

/**
 * Registers `int3 call [--image <elf>] [--json] [--max-insns <n>] <symbol> [args...]`: run one function
 * of a freestanding x86-64 ELF in ring 0 and print `return: <rax as unsigned decimal>`.
 */
export function registerCallCommand(program: Command): void {
  program
    .command('call')
    .description('run one function of a freestanding x86-64 ELF in ring 0 and print what it returns')
    .argument('<symbol>', 'the function: a symbol of the image, or a 0x address')
    .argument('[args...]', 'up to six arguments: 42, -1, 0x10, str:TEXT, buf:N')
    .option('--image <elf>', 'ET_EXEC image to load (default: the @int3/cpu sample image)')
    .option(
      '--json',
      'print {"return":"<decimal>","instructions":<count>} instead (with -e, "trace": the typed records of --format json, and "traps": the #BP and #DB traps the probes took)',
    )
    .option('--max-insns <n>', 'give up after this many instructions', '1e9')
    .addOption(CommonOptions.event('trace this kprobe_events line during a call of a kernel function (repeatable)'))
    .addHelpText('after', EXAMPLE)
    .action(async (symbol: string, rawArgs: string[], options: CallOptions, command: Command) => {
      if (options.event === undefined) await runCall(command, symbol, rawArgs, options);
      else await runTracedKernelCall(command, symbol, rawArgs, options);
    });
}

/** `call -e DEF… SYMBOL ARGS…`: boots the sample kernel, defines and enables the events, calls, prints. */
async function runTracedKernelCall(command: Command, symbol: string, rawArgs: string[], options: CallOptions) {
  if (rawArgs.length > 6) throw new CliError('usage', `too many arguments (${rawArgs.length}); at most 6`, 'call');
  const image = readKernelImage(options.image, 'call');
  const c = createCliContainer(command, () => createTracedSession(image, 1, { command: 'call' }));
  const t = c.get<TracedSession>(CliTokens.TracedSession);
  resolveKernelFunction(t, symbol, 'call');
  const args = rawArgs.map(parseCallArgument);
  defineEvents(t, { definitions: options.event ?? [], filters: [] }, 'call');
  const call = callKernelFunction(t, symbol, args, 'call');
  const value = call.value.toString();
  if (options.json) {
    // The typed records of the JSON Lines schema (format, lost and event lines), as an array.
    const trace = new TraceJsonLines(t.fs).drainRecords();
    writeOut(command, jsonLine({ return: value, instructions: call.instructions, traps: call.traps, trace }));
    return;
  }
  writeOut(command, `${t.fs.read('trace_pipe')}return: ${value}\n`);
}

/** Instructions a call runs between two looks at the event loop (where signals are delivered). */
const CALL_SLICE = 20_000_000;

async function runCall(command: Command, symbol: string, rawArgs: string[], options: CallOptions): Promise<void> {
  // Step 1: everything the user typed, before any work.
  if (rawArgs.length > 6) throw new CliError('usage', `too many arguments (${rawArgs.length}); at most 6`, 'call');
  const args = rawArgs.map(parseCallArgument);
  const maxInsns = parseCount(options.maxInsns, '--max-insns');
  // Step 2: the image and the function.
  const image = loadImage(options.image, 'call');
  const address = resolveFunction(image, symbol, 'call');
  // Step 3: the call, in slices of instructions; a stop signal ends it at the next slice.
  let run: GuestCallRun;
  try {
    run = startGuestCall(image.file, address, args);
  } catch (error) {
    if (error instanceof ElfError) throw new CliError('usage', `bad image: ${error.message}`, 'call');
    if (error instanceof MemoryError) throw new CliError('failure', `cannot set up the call: ${error.message}`);
    throw error;
  }
  const interrupt = environmentOf(command).interrupt;
  for (let left = maxInsns; !run.run(Math.min(CALL_SLICE, left)); ) {
    left -= Math.min(CALL_SLICE, left);
    if (left <= 0) break;
    const signal = await yieldForSignal(interrupt);
    if (signal) {
      run.finish();
      throw interruptedBy(
        signal,
        `after ${run.instructions} instructions of ${symbol}, at ${image.symbols.format(run.rip)} (0x${run.rip.toString(16)})`,
      );
    }
  }
  const call: GuestCall = run.finish();
  if (call.outcome.kind !== 'returned') {
    throw new CliError('failure', describeStop(call.outcome.result, call.traps, image.symbols, call.space, maxInsns));
  }
  const value = call.outcome.value.toString();
  writeOut(
    command,
    options.json ? `${JSON.stringify({ return: value, instructions: call.instructions })}\n` : `return: ${value}\n`,
  );
}
