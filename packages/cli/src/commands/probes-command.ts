import { TICK_NS } from '@int3/kernel';
import { kprobeListFlags } from '@int3/kprobes';
import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import { addInspectOptions, bootTraced, type InspectOptions } from '../tracing/boot-traced.js';
import type { TracedSession } from '../tracing/traced-session.js';
import { writeOut } from '../write-out.js';

const EXAMPLE = `
Example:
  $ int3 probes list -e 'p:open do_sys_open' -e 'r:mk sys_mkdir'
  ffffffff81001c80  k  do_sys_open+0x0
  ffffffff81001830  r  sys_mkdir+0x0
  $ int3 probes list --why -e 'p:open do_sys_open' -e 'p:in do_sys_open+1'
  ffffffff81001c81  k  do_sys_open+0x1    [OPTIMIZED]
  ffffffff81001c80  k  do_sys_open+0x0
      not optimized: probe inside the region at do_sys_open+0x1/0x40
  $ int3 probes blacklist | head -3`;

/** `probes list --json`: one object per registered probe, as the list shows them, with `why`. */
function listJson(t: TracedSession): string {
  const k = t.kprobes;
  const rows = [...k.probes()].map((state) => {
    const p = state.kp;
    const loc = p.addr === undefined ? undefined : t.session.machine.kallsyms.lookup(p.addr);
    const why = p.addr === undefined ? undefined : k.optimization.refusal(p);
    return {
      address: p.addr === undefined ? null : `0x${p.addr.toString(16)}`,
      kind: state.kind,
      symbol: loc ? `${loc.sym.name}+0x${loc.offset.toString(16)}` : null,
      module: loc?.sym.module ?? null,
      flags: kprobeListFlags(state),
      ...(why === undefined ? {} : { why }),
    };
  });
  return `${JSON.stringify(rows)}\n`;
}

/** `probes list --why`: after each probe not jump-optimized, why (kprobes.optimization.refusal). */
function listWithReasons(t: TracedSession): string {
  const reasons = new Map<string, string>();
  for (const { kp: p } of t.kprobes.probes()) {
    const why = p.addr === undefined ? undefined : t.kprobes.optimization.refusal(p);
    if (why !== undefined) reasons.set(p.addr!.toString(16).padStart(16, '0'), why);
  }
  const list = t.fs.read('/sys/kernel/debug/kprobes/list');
  return list.replace(/^([0-9a-f]{16}) .*\n/gm, (line, addr: string) => {
    const why = reasons.get(addr);
    return why === undefined ? line : `${line}    not optimized: ${why}\n`;
  });
}

/**
 * Registers `int3 probes list|blacklist`: `/sys/kernel/debug/kprobes/list` (with `--why`, the reason
 * each probe is not jump-optimized) or `blacklist`.
 */
export function registerProbesCommand(program: Command): void {
  const command = program
    .command('probes')
    .description('print the kprobes debugfs list (registered probes) or blacklist')
    .argument('<what>', 'list or blacklist')
    .option('--why', 'list: say why each probe is not jump-optimized')
    .option('--json', 'list: one JSON array of {address, kind, symbol, module, flags, why?}');
  addInspectOptions(command)
    .addHelpText('after', EXAMPLE)
    .action(async (what: string, options: InspectOptions & { why?: boolean; json?: boolean }, cmd: Command) => {
      if (what !== 'list' && what !== 'blacklist') {
        throw new CliError('usage', `unknown 'probes ${what}': expected list or blacklist`, 'probes');
      }
      if ((options.why || options.json) && what !== 'list') {
        throw new CliError('usage', '--why and --json go with probes list', 'probes');
      }
      const t = await bootTraced(cmd, options, 'probes');
      // Let the optimizer's delay (5 jiffies) and its patching rounds pass, as on a system whose probes
      // were registered a moment ago: the list then shows what was optimized.
      const m = t.session.machine;
      t.session.apply({ type: 'input:run', deadlineNs: m.clock(0) + 2 * t.kprobes.optimization.delay * TICK_NS });
      if (options.json) writeOut(cmd, listJson(t));
      else writeOut(cmd, options.why ? listWithReasons(t) : t.fs.read(`/sys/kernel/debug/kprobes/${what}`));
    });
}
