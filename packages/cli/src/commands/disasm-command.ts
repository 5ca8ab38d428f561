import type { Command } from 'commander';
import { suggestNames } from '../call/suggest-names.js';
import { CliError } from '../cli-error.js';
import { formatDisassembly } from '../inspect/format-disassembly.js';
import { addInspectOptions, bootTraced, type InspectOptions } from '../tracing/boot-traced.js';
import { writeOut } from '../write-out.js';

/** Largest function shown, in bytes. */
const MAX_BYTES = 4096;

/**
 * Registers `int3 disasm <sym> [-e <def>]…`: the function's instructions (iced-x86, AT&T), each probe
 * point marked with its kind, the original instruction shown (not the int3 over it) and the slot
 * holding its copy.
 *
 * @see arch/x86/kernel/kprobes/core.c arch_prepare_kprobe() (the copied instruction)
 */
export function registerDisasmCommand(program: Command): void {
  const command = program
    .command('disasm')
    .description('disassemble a kernel function, marking probe points')
    .argument('<symbol>', 'a kernel function, e.g. do_sys_open');
  addInspectOptions(command)
    .addHelpText(
      'after',
      "\nExample:\n  $ int3 disasm do_sys_open -e 'p do_sys_open+4'\n  ffffffff81001c84:  ...  <- kprobe (armed; copy at slot 0x...)",
    )
    .action(async (symbol: string, options: InspectOptions, cmd: Command) => {
      const t = await bootTraced(cmd, options, 'disasm');
      const m = t.session.machine;
      const sym = m.kallsyms.lookupName(symbol);
      if (sym === undefined) {
        const near = suggestNames(
          symbol,
          m.kallsyms
            .all()
            .filter((s) => s.type === 'T' || s.type === 't')
            .map((s) => s.name),
        );
        const hint = near.length > 0 ? `; did you mean ${near.join(', ')}?` : '';
        throw new CliError('usage', `unknown kernel symbol '${symbol}'${hint}`, 'disasm');
      }
      const size = Math.min(sym.size || 64, MAX_BYTES);
      const lines = formatDisassembly(m.space, t.kprobes, { start: sym.address, size });
      const out = `${sym.address.toString(16)} <${sym.name}>:\n${lines.map((l) => `${l}\n`).join('')}`;
      writeOut(cmd, out);
    });
}
