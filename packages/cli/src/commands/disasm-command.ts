import { TICK_NS } from '@int3/kernel';
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
 * point marked with how it is patched, the original instructions shown (not the int3 or jmp over them)
 * and the slot or detour buffer holding the copy. Probes get the optimizer's delay first.
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
      "\nExample:\n  $ int3 disasm do_sys_open -e 'p do_sys_open+3'\n  ffffffff81001c83:  ...  <- kprobe (jump-optimized: jmp to its detour buffer at 0x..., the first 6 bytes copied there)",
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
      // As `probes list` does: let the optimizer's delay (5 jiffies) and its patching rounds pass, so
      // the marks show what registering left in place.
      t.session.apply({ type: 'input:run', deadlineNs: m.clock(0) + 2 * t.kprobes.optimization.delay * TICK_NS });
      const size = Math.min(sym.size || 64, MAX_BYTES);
      const lines = formatDisassembly(m.space, t.kprobes, { start: sym.address, size });
      const out = `${sym.address.toString(16)} <${sym.name}>:\n${lines.map((l) => `${l}\n`).join('')}`;
      writeOut(cmd, out);
    });
}
