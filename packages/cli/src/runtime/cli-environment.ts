import type { Command } from 'commander';
import { Interrupt } from './interrupt.js';

/** What the process gives the CLI: its terminals, environment, directory and Ctrl-C. */
export interface CliEnvironment {
  readonly interrupt: Interrupt;
  readonly stdinIsTty: boolean;
  readonly stdoutIsTty: boolean;
  readonly stderrIsTty: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Where relative plugin paths and packages are resolved from. */
  readonly cwd: string;
  readonly writeErr: (text: string) => void;
}

/** The running process's environment (the default of `createProgram`). */
export function processEnvironment(interrupt: Interrupt = new Interrupt()): CliEnvironment {
  return {
    interrupt,
    stdinIsTty: process.stdin.isTTY === true,
    stdoutIsTty: process.stdout.isTTY === true,
    stderrIsTty: process.stderr.isTTY === true,
    env: process.env,
    cwd: process.cwd(),
    writeErr: (text) => process.stderr.write(text),
  };
}

const environments = new WeakMap<Command, CliEnvironment>();

/** Attaches the environment to the root program, where {@link environmentOf} finds it. */
export function attachEnvironment(program: Command, environment: CliEnvironment): void {
  environments.set(program, environment);
}

/** The environment of the program `command` belongs to (the process's when none was attached). */
export function environmentOf(command: Command): CliEnvironment {
  let root = command;
  while (root.parent) root = root.parent;
  let environment = environments.get(root);
  if (!environment) {
    environment = processEnvironment();
    environments.set(root, environment);
  }
  return environment;
}
