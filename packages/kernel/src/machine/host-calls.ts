import { type AddressSpace, hi32, lo32, PAGE_SIZE, toBig } from '@int3/cpu';
import type { Kallsyms, KsymInput } from '../kallsyms/kallsyms.js';
import { KernelError } from '../kernel-error.js';
import type { Wait } from '../sched/task.js';
import type { PtRegs } from '../traps/pt-regs.js';

/** Bytes per gate: each host service owns 16 bytes of a gate page. */
export const GATE_SIZE = 16;

/** What a host service sees of the call: the calling CPU and its registers (SysV arguments). */
export interface HostCallContext {
  readonly cpu: number;
  readonly regs: PtRegs;
  /** The `n`th integer argument (0-based) per the SysV ABI. */
  arg(n: number): bigint;
}

/**
 * The answer of a service that has set the CPU's `rip` (and whatever registers it meant to) itself:
 * no `ret` is emulated and rax is left alone; the CPU continues where the service put it. A gate
 * reached by a `jmp` rather than a `call` (kprobes' optimized-probe gates) answers this.
 */
export const HOST_CALL_JUMPED: { readonly jumped: true } = Object.freeze({ jumped: true });

/**
 * A host service's answer: a return value for rax (undefined leaves rax alone), {@link HOST_CALL_JUMPED}
 * (continue at the `rip` the service set, without `ret`), or what happens to the calling task: it
 * blocks on a wait, yields its CPU (the call returns 0 when it runs again), or has left the CPU for
 * good (exit; the service already disposed of it).
 */
export type HostCallResult =
  | bigint
  | number
  | undefined
  | typeof HOST_CALL_JUMPED
  | { readonly block: Wait }
  | { readonly yield: true }
  | { readonly exit: number };

/** A host service: TypeScript that guest code reaches by calling a gate address. */
export type HostCallHandler = (ctx: HostCallContext) => HostCallResult;

/** A bound gate. */
export interface HostGate {
  readonly name: string;
  readonly address: bigint;
  readonly handler: HostCallHandler;
  /**
   * Handled inside the CPU's run loop, without leaving it (see `Cpu.gateHook`): the handler must
   * return {@link HOST_CALL_JUMPED} (it moves rip itself) and must not block, yield or exit.
   */
  readonly inline?: boolean;
}

/** The gates of a {@link HostCalls} (handlers are kept by reference, never copied). */
export interface HostCallsState {
  readonly gates: readonly HostGate[];
  readonly dynamic: readonly KsymInput[];
  readonly page: bigint | undefined;
  readonly used: number;
}

/**
 * The host-call gates: addresses on pages mapped with `PageFlags.Gate`, where reaching the address
 * runs a TypeScript service and returns to the caller as if by `ret`. The image's `.hostcall` gates
 * (`host_*`) are bound by name; other packages define gates of their own (kprobes' `register_kprobe`
 * for modules, the return gate of host-to-guest calls), which join kallsyms like any function.
 */
export class HostCalls {
  private readonly byAddress = new Map<bigint, HostGate>();
  /**
   * The same gates keyed by the low 32 bits of the address as an int32 (a small integer key: no
   * bigint, no heap number on the gate path).
   */
  private readonly byLow = new Map<number, { readonly hi: number; readonly gate: HostGate }>();
  /** The inline gates alone, keyed the same way (the CPU's gate hook asks for nothing else). */
  private readonly inlineByLow = new Map<number, { readonly hi: number; readonly gate: HostGate }>();
  private readonly dynamic: KsymInput[] = [];
  private page: bigint | undefined;
  private used = 0;

  constructor(
    private readonly space: AddressSpace,
    private readonly kallsyms: Kallsyms,
    private readonly allocPage: () => bigint,
  ) {}

  /** Binds a handler to a gate that already exists at `address` (an image `host_*` symbol). */
  bind(name: string, address: bigint, handler: HostCallHandler, options: { readonly inline?: boolean } = {}): void {
    if (!this.space.isGate(address)) {
      throw new KernelError('BAD_IMAGE', `host gate ${name} at 0x${address.toString(16)} is not a gate`);
    }
    // A gate bound anew (inline or not) first leaves the indexes, so neither keeps its old binding.
    if (this.byAddress.has(address)) this.unbind(address);
    this.add(Object.freeze({ name, address, handler, ...(options.inline ? { inline: true } : {}) }));
  }

  /**
   * Removes the binding at `address` (a gate of a page its owner frees); calling it afterwards is a
   * call to an unbound gate.
   */
  unbind(address: bigint): void {
    this.byAddress.delete(address);
    this.dropDecoded(address);
    const low = lo32(address);
    if (this.byLow.get(low)?.gate.address === address || this.inlineByLow.get(low)?.gate.address === address) {
      this.byLow.delete(low);
      this.inlineByLow.delete(low);
      for (const g of this.byAddress.values()) if (lo32(g.address) === low) this.add(g);
    }
  }

  /** Creates a new gate named `name` (a text symbol in kallsyms) and returns its address. */
  define(name: string, handler: HostCallHandler): bigint {
    if (this.page === undefined || this.used + GATE_SIZE > PAGE_SIZE) {
      this.page = this.allocPage();
      this.used = 0;
      // int3 filler: the bytes are never executed (the CPU stops at a gate page before decoding them).
      this.space.write(this.page, new Uint8Array(PAGE_SIZE).fill(0xcc));
    }
    const address = this.page + BigInt(this.used);
    this.used += GATE_SIZE;
    this.add(Object.freeze({ name, address, handler }));
    this.dynamic.push({ name, address, size: GATE_SIZE, kind: 'text', global: true });
    this.kallsyms.addRegion(undefined, this.dynamic, 'host-gates');
    return address;
  }

  /**
   * Which gates exist (with their handlers, by reference) and where the next one goes. The gate
   * pages' bytes and the `host-gates` kallsyms region are saved with memory and kallsyms.
   */
  save(): HostCallsState {
    return Object.freeze({
      gates: Object.freeze([...this.byAddress.values()]),
      dynamic: Object.freeze([...this.dynamic]),
      page: this.page,
      used: this.used,
    });
  }

  /** Puts back the gates of a {@link save}: a gate defined since is gone, as its page is. */
  restore(state: HostCallsState): void {
    for (const a of this.byAddress.keys()) this.dropDecoded(a);
    this.byAddress.clear();
    this.byLow.clear();
    this.inlineByLow.clear();
    for (const g of state.gates) this.add(g);
    this.dynamic.length = 0;
    for (const d of state.dynamic) this.dynamic.push(d);
    this.page = state.page;
    this.used = state.used;
  }

  /** The gate at `address`, if one is bound there. */
  lookup(address: bigint): HostGate | undefined {
    return this.byAddress.get(address);
  }

  /**
   * {@link lookup} by the address's int32 halves (as the CPU keeps `rip`), without making a bigint
   * unless two gates share the low half.
   */
  lookupHalves(lo: number, hi: number): HostGate | undefined {
    const e = this.byLow.get(lo | 0);
    if (e === undefined) return undefined;
    if (e.hi === hi) return e.gate;
    return this.byAddress.get(toBig(lo, hi));
  }

  /**
   * The inline gate at an address given as int32 halves, if one is bound there: what the CPU's gate
   * hook asks on every optimized probe hit, so it never looks at the other gates.
   */
  inlineHalves(lo: number, hi: number): HostGate | undefined {
    const e = this.inlineByLow.get(lo | 0);
    if (e === undefined) return undefined;
    if (e.hi === hi) return e.gate;
    const g = this.byAddress.get(toBig(lo, hi));
    return g?.inline === true ? g : undefined;
  }

  /**
   * Drops the decoded gate at `address`: the CPUs' gate hook caches a gate's binding on it, so a
   * binding that changes must drop it (the next visit decodes and looks up again).
   */
  private dropDecoded(address: bigint): void {
    if (this.space.isMapped(address)) this.space.dropCode(address, 1);
  }

  private add(g: HostGate): void {
    this.byAddress.set(g.address, g);
    this.dropDecoded(g.address);
    const low = lo32(g.address);
    const entry = { hi: hi32(g.address), gate: g };
    const have = this.byLow.get(low);
    if (have === undefined || have.gate.address === g.address) this.byLow.set(low, entry);
    if (g.inline === true) {
      const inline = this.inlineByLow.get(low);
      if (inline === undefined || inline.gate.address === g.address) this.inlineByLow.set(low, entry);
    }
  }
}
