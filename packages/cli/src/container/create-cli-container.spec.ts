import { fileURLToPath } from 'node:url';
import type { Machine } from '@int3/kernel';
import type { TraceFs, TracerHost } from '@int3/tracer-plugins';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { CliError } from '../cli-error.js';
import { attachEnvironment, type CliEnvironment } from '../runtime/cli-environment.js';
import { addGlobalOptions } from '../runtime/global-options.js';
import { Interrupt } from '../runtime/interrupt.js';
import type { Terminal } from '../runtime/terminal.js';
import { createTracedSession, readKernelImage, type TracedSession } from '../tracing/traced-session.js';
import { CliTokens } from './cli-tokens.js';
import { createCliContainer } from './create-cli-container.js';

const SYSCOUNT = fileURLToPath(new URL('../../../../examples/plugin-syscount', import.meta.url));

/** The command `int3 <argv> x` ran with, in a program with a piped, colourless environment. */
async function commandOf(argv: string[]): Promise<Command> {
  const environment: CliEnvironment = {
    interrupt: new Interrupt(),
    stdinIsTty: false,
    stdoutIsTty: true,
    stderrIsTty: false,
    env: {},
    cwd: process.cwd(),
    writeErr: () => {},
  };
  const program = addGlobalOptions(new Command('int3'));
  attachEnvironment(program, environment);
  let ran: Command | undefined;
  program.command('x').action((_o, cmd: Command) => {
    ran = cmd;
  });
  await program.parseAsync(['node', 'int3', ...argv, 'x']);
  return ran!;
}

describe(createCliContainer, () => {
  it('should boot once and hand out that session, its machine and its tracefs', async () => {
    let boots = 0;
    const image = readKernelImage(undefined, 'x');
    const c = createCliContainer(await commandOf([]), () => {
      boots++;
      return createTracedSession(image, 1);
    });
    expect(boots).toBe(0);
    const t = c.get<TracedSession>(CliTokens.TracedSession);
    expect(c.get<TracedSession>(CliTokens.TracedSession)).toBe(t);
    expect(c.get<Machine>(CliTokens.Machine)).toBe(t.session.machine);
    expect(c.get<TraceFs>(CliTokens.TraceFs)).toBe(t.fs);
    expect(boots).toBe(1);
  });

  it('should build the terminal from the environment and the global options', async () => {
    const colored = createCliContainer(await commandOf([])).get<Terminal>(CliTokens.Terminal);
    expect([colored.colorOut, colored.colorErr, colored.quiet]).toEqual([true, false, false]);
    const plain = createCliContainer(await commandOf(['--no-color', '--quiet'])).get<Terminal>(CliTokens.Terminal);
    expect([plain.colorOut, plain.quiet]).toEqual([false, true]);
  });

  it('should load every --plugin into the tracer host', async () => {
    const image = readKernelImage(undefined, 'x');
    const c = createCliContainer(await commandOf(['--plugin', SYSCOUNT]), () => createTracedSession(image, 1));
    const host = await c.getAsync<TracerHost>(CliTokens.TracerHost);
    expect(host.tracerNames).toEqual(['funclatency', 'chrome-trace', 'bpftrace', 'syscount']);
    expect(await c.getAsync<TracerHost>(CliTokens.TracerHost)).toBe(host);
  });

  it('should turn a plugin that cannot load into a failure naming it', async () => {
    const image = readKernelImage(undefined, 'x');
    const c = createCliContainer(await commandOf(['--plugin', './nope']), () => createTracedSession(image, 1));
    const error = await c.getAsync<TracerHost>(CliTokens.TracerHost).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(1);
    expect((error as CliError).message).toMatch(/^cannot load --plugin \.\/nope: plugin '\.\/nope': no such file/);
  });
});
