import { argumentBytes, type CallArgument } from '@int3/cpu';
import { KernelError } from '@int3/kernel';
import { CliError } from '../cli-error.js';
import type { TracedSession } from '../tracing/traced-session.js';
import { whyCallCannotReturn } from './non-returning-calls.js';
import { suggestNames } from './suggest-names.js';

/** What a kernel function returned, and what the call cost. */
export interface KernelCall {
  /** rax, unsigned. */
  readonly value: bigint;
  readonly instructions: number;
  /**
   * The kprobe traps the call took, by name: `#BP` (an int3 hit) and `#DB` (the single-step after it).
   * A single-stepped hit takes one of each, a boosted hit a `#BP` alone, a jump-optimized hit none.
   */
  readonly traps: { readonly '#BP': number; readonly '#DB': number };
}

/**
 * Calls a function of the booted kernel on CPU 0 with the SysV ABI, as a module's code would: `str:`
 * and `buf:` arguments are copied into vmalloc'd pages (freed after). Probes on the way fire and
 * record into the trace. An unknown symbol is a usage error suggesting the nearest function names;
 * an oops, a runaway or a panic is a failure.
 *
 * @see KernelApi.guest (the host-to-guest call)
 * @example
 * callKernelFunction(t, 'strlen', [{ kind: 'str', text: 'hello' }], 'call'); // { value: 5n, ... }
 */
export function callKernelFunction(
  t: TracedSession,
  symbol: string,
  args: readonly CallArgument[],
  command: string,
): KernelCall {
  const m = t.session.machine;
  const address = resolveKernelFunction(t, symbol, command);
  const mapped: bigint[] = [];
  const cpu = m.cpus[0];
  const before = cpu.retired;
  const traps = { '#BP': 0, '#DB': 0 };
  const counting = m.streams.traps$.subscribe((e) => {
    if (e.name === '#BP' || e.name === '#DB') traps[e.name]++;
  });
  try {
    const values = args.map((arg) => {
      if (arg.kind === 'int') return arg.value;
      const bytes = argumentBytes(arg)!;
      const at = m.kernel.memory.vmallocMap(Math.max(1, bytes.length));
      mapped.push(at);
      m.space.write(at, bytes);
      return at;
    });
    const value = m.kernel.guest.call(0, address, values);
    return { value: BigInt.asUintN(64, value), instructions: cpu.retired - before, traps: Object.freeze(traps) };
  } catch (error) {
    if (error instanceof KernelError) throw new CliError('failure', `${command} ${symbol}: ${error.message}`);
    throw error;
  } finally {
    counting.unsubscribe();
    for (const at of mapped) m.kernel.memory.free(at);
  }
}

/**
 * The address of a kernel text symbol (or a `0x` address); unknown names suggest the nearest, and a
 * function that cannot return to a host-to-guest call (see {@link whyCallCannotReturn}) is refused,
 * by name or by its address.
 */
export function resolveKernelFunction(t: TracedSession, symbol: string, command: string): bigint {
  const ks = t.session.machine.kallsyms;
  if (/^0x[0-9a-f]+$/i.test(symbol)) {
    const address = BigInt(symbol);
    const at = ks.lookup(address);
    if (at !== undefined && at.offset === 0) refuseNonReturning(at.sym.name, command);
    return address;
  }
  const sym = ks.lookupName(symbol);
  if (sym !== undefined && (sym.type === 'T' || sym.type === 't')) {
    refuseNonReturning(symbol, command);
    return sym.address;
  }
  if (sym !== undefined) throw new CliError('usage', `'${symbol}' is a data object, not a function`, command);
  const functions = ks
    .all()
    .filter((s) => s.type === 'T' || s.type === 't')
    .map((s) => s.name);
  const near = suggestNames(symbol, functions);
  const hint = near.length > 0 ? `; did you mean ${near.join(', ')}?` : " (list them with 'int3 syms')";
  throw new CliError('usage', `unknown kernel symbol '${symbol}'${hint}`, command);
}

function refuseNonReturning(name: string, command: string): void {
  const why = whyCallCannotReturn(name);
  if (why !== undefined) {
    throw new CliError('usage', `${name} cannot return to its caller: ${why}; call a function that returns`, command);
  }
}
