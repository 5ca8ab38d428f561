import { describe, expect, it } from 'vitest';
import { createProgram, VERSION } from './program.js';

describe(createProgram, () => {
  it('should print the version for --version and -V', async () => {
    for (const flag of ['--version', '-V']) {
      let out = '';
      const program = createProgram()
        .exitOverride()
        .configureOutput({ writeOut: (s) => (out += s) });
      await expect(program.parseAsync(['node', 'int3', flag])).rejects.toThrow(VERSION);
      expect(out.trim()).toBe(VERSION);
    }
  });

  it("should print commander's parse errors with int3's prefix", async () => {
    let err = '';
    const program = createProgram().configureOutput({ writeErr: (s) => (err += s) });
    await expect(program.parseAsync(['node', 'int3', '--bogus'])).rejects.toMatchObject({ exitCode: 1 });
    expect(err).toMatch(/^int3: unknown option '--bogus'\n/);
    err = '';
    await expect(program.parseAsync(['node', 'int3', 'syms', '--color', 'sometimes'])).rejects.toThrow();
    expect(err).toMatch(/^int3: option '--color <when>' argument 'sometimes' is invalid/);
  });

  it('should register every command, each with an example in its help', () => {
    const program = createProgram();
    for (const name of [
      'trace',
      'record',
      'replay',
      'tracefs',
      'tracers',
      'probes',
      'syms',
      'disasm',
      'dmesg',
      'call',
      'demo',
    ]) {
      const command = program.commands.find((c) => c.name() === name);
      expect(command).toBeDefined();
      let help = '';
      command!.configureOutput({ writeOut: (s) => (help += s) }).outputHelp();
      expect(help).toMatch(/Examples?:\n {2}\$ int3 /);
    }
  });
});
