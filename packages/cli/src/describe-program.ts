import type { Command } from 'commander';
import { commanderErrorLine } from './report-error.js';
import { addGlobalOptions } from './runtime/global-options.js';
import { VERSION } from './version.js';

const EXAMPLES = `
Examples:
  $ int3 demo                                        # kprobes in one screen
  $ int3 trace -e 'p:open do_sys_open filename=+0(%si):string' --run 'cat /etc/motd'
  $ int3 trace -e 'p:open do_sys_open' -- cat /etc/motd   # after --: one workload, as perf record -- cmd
  $ int3 tracefs                                     # echo > kprobe_events, cat trace, as in the docs
  $ int3 record -o run.int3log --run dd && int3 replay run.int3log -e 'p:bio submit_bio'

Global options go before or after the command. Colours on a terminal only (--color=auto|always|never,
NO_COLOR, FORCE_COLOR, TERM=dumb). Shell completion: int3 completion bash|zsh|fish.
The CPU compiles hot guest code to WebAssembly (what that does not take, to JavaScript): INT3_JIT=0
interprets everything (the same results and logs, slower), INT3_JIT_WASM=0 compiles to JavaScript
only, INT3_JIT_THRESHOLD=N compiles a block after N visits (1-65535; default 1024).
Exit status: 0 ok, 1 the run failed, 2 usage error, 130 interrupted (Ctrl-C).`;

/**
 * The root of the `int3` command line without its commands: name, description, `-V, --version`,
 * the help's examples, the global options, and commander's errors as `int3: …` lines. Parse errors
 * throw (exitOverride) so `bin.ts` decides the exit code; subcommands inherit that and the output
 * settings. Shared by the full program and its outline, so both print the same.
 */
export function describeProgram(program: Command): Command {
  program
    .description('Linux kprobes on an emulated x86-64 kernel: trace, record, replay')
    .version(VERSION, '-V, --version', 'print the version')
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(commanderErrorLine(text)) })
    .showHelpAfterError('(add --help for usage and an example)')
    .addHelpText('after', EXAMPLES);
  return addGlobalOptions(program);
}
