import { describe, expect, it } from 'vitest';
import { createProgram, VERSION } from './program.js';

describe(createProgram, () => {
  it('should print the version for --version', async () => {
    let out = '';
    const program = createProgram()
      .exitOverride()
      .configureOutput({ writeOut: (s) => (out += s) });
    await expect(program.parseAsync(['node', 'int3', '--version'])).rejects.toThrow(VERSION);
    expect(out.trim()).toBe(VERSION);
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
