/**
 * Writes WebAssembly binary modules: the encodings the code generator needs (LEB128 integers,
 * value types, the opcodes it emits) and the module layout (type, import, function, export and
 * code sections), nothing more.
 * @see https://webassembly.github.io/spec/core/binary/index.html
 */

/** Value types. */
export const I32 = 0x7f;
export const I64 = 0x7e;
/** The block type of a block with no result. */
export const VOID = 0x40;

/** The opcodes the generator emits. */
export const W = {
  unreachable: 0x00,
  block: 0x02,
  loop: 0x03,
  if: 0x04,
  else: 0x05,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  brTable: 0x0e,
  return: 0x0f,
  call: 0x10,
  callIndirect: 0x11,
  drop: 0x1a,
  select: 0x1b,
  localGet: 0x20,
  localSet: 0x21,
  localTee: 0x22,
  i32Load: 0x28,
  i64Load: 0x29,
  i32Load8U: 0x2d,
  i32Load16U: 0x2f,
  i64Load8U: 0x31,
  i64Load16U: 0x33,
  i64Load32U: 0x35,
  i32Store: 0x36,
  i64Store: 0x37,
  i32Store8: 0x3a,
  i32Store16: 0x3b,
  i64Store8: 0x3c,
  i64Store16: 0x3d,
  i64Store32: 0x3e,
  i32Const: 0x41,
  i64Const: 0x42,
  i32Eqz: 0x45,
  i32Eq: 0x46,
  i32Ne: 0x47,
  i32LtS: 0x48,
  i32LtU: 0x49,
  i32GtS: 0x4a,
  i32GtU: 0x4b,
  i32LeS: 0x4c,
  i32LeU: 0x4d,
  i32GeS: 0x4e,
  i32GeU: 0x4f,
  i64Eqz: 0x50,
  i64Eq: 0x51,
  i64Ne: 0x52,
  i64LtS: 0x53,
  i64LtU: 0x54,
  i64GtS: 0x55,
  i64GtU: 0x56,
  i64LeS: 0x57,
  i64LeU: 0x58,
  i64GeS: 0x59,
  i64GeU: 0x5a,
  i32Add: 0x6a,
  i32Sub: 0x6b,
  i32Mul: 0x6c,
  i32And: 0x71,
  i32Or: 0x72,
  i32Xor: 0x73,
  i32Popcnt: 0x69,
  i32Shl: 0x74,
  i32ShrS: 0x75,
  i32ShrU: 0x76,
  i64Popcnt: 0x7b,
  i64Add: 0x7c,
  i64Sub: 0x7d,
  i64Mul: 0x7e,
  i64And: 0x83,
  i64Or: 0x84,
  i64Xor: 0x85,
  i64Shl: 0x86,
  i64ShrS: 0x87,
  i64ShrU: 0x88,
  i32WrapI64: 0xa7,
  i64ExtendI32S: 0xac,
  i64ExtendI32U: 0xad,
  i64Extend8S: 0xc2,
  i64Extend16S: 0xc3,
  i64Extend32S: 0xc4,
  /** The prefix of the bulk memory ops, and theirs after it. */
  prefixFC: 0xfc,
  fcMemoryFill: 0x0b,
} as const;

/** A growable byte buffer with the binary format's integer encodings. */
export class WasmBytes {
  private buf = new Uint8Array(256);
  length = 0;

  byte(b: number): this {
    if (this.length === this.buf.length) {
      const bigger = new Uint8Array(this.buf.length * 2);
      bigger.set(this.buf);
      this.buf = bigger;
    }
    this.buf[this.length++] = b;
    return this;
  }

  bytes(bs: ArrayLike<number>): this {
    for (let k = 0; k < bs.length; k++) this.byte(bs[k]);
    return this;
  }

  /** An unsigned LEB128 integer (below 2^32). */
  u32(v: number): this {
    let x = v >>> 0;
    do {
      const b = x & 0x7f;
      x >>>= 7;
      this.byte(x === 0 ? b : b | 0x80);
    } while (x !== 0);
    return this;
  }

  /** A signed LEB128 integer of 32 bits. */
  s32(v: number): this {
    let x = v | 0;
    for (;;) {
      const b = x & 0x7f;
      x >>= 7;
      if ((x === 0 && (b & 0x40) === 0) || (x === -1 && (b & 0x40) !== 0)) return this.byte(b);
      this.byte(b | 0x80);
    }
  }

  /** A signed LEB128 integer of 64 bits. */
  s64(v: bigint): this {
    let x = BigInt.asIntN(64, v);
    for (;;) {
      const b = Number(x & 0x7fn);
      x >>= 7n;
      if ((x === 0n && (b & 0x40) === 0) || (x === -1n && (b & 0x40) !== 0)) return this.byte(b);
      this.byte(b | 0x80);
    }
  }

  /** A name: its UTF-8 bytes after their count. */
  name(s: string): this {
    const b = new TextEncoder().encode(s);
    return this.u32(b.length).bytes(b);
  }

  /** Appends another buffer's bytes after their count (a section's or a function body's size). */
  sized(inner: WasmBytes): this {
    this.u32(inner.length);
    for (let k = 0; k < inner.length; k++) this.byte(inner.buf[k]);
    return this;
  }

  /** The bytes written (a copy). */
  toBytes(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

/** A function's code: its locals (after its parameters), then its instructions. */
export class WasmFunction {
  readonly code = new WasmBytes();
  private readonly locals: number[] = [];

  constructor(
    readonly params: readonly number[],
    readonly results: readonly number[],
  ) {}

  /** A function of the same signature and locals as `other`, with no code yet. */
  static like(other: WasmFunction): WasmFunction {
    const f = new WasmFunction(other.params, other.results);
    f.locals.push(...other.locals);
    return f;
  }

  /** Declares a local of `type`; returns its index. */
  local(type: number): number {
    this.locals.push(type);
    return this.params.length + this.locals.length - 1;
  }

  op(opcode: number): this {
    this.code.byte(opcode);
    return this;
  }

  get(local: number): this {
    this.code.byte(W.localGet).u32(local);
    return this;
  }

  set(local: number): this {
    this.code.byte(W.localSet).u32(local);
    return this;
  }

  tee(local: number): this {
    this.code.byte(W.localTee).u32(local);
    return this;
  }

  i32(v: number): this {
    this.code.byte(W.i32Const).s32(v);
    return this;
  }

  i64(v: bigint): this {
    this.code.byte(W.i64Const).s64(v);
    return this;
  }

  /** A load or store: its opcode, then its alignment (log2) and offset. */
  mem(opcode: number, align: number, offset = 0): this {
    this.code.byte(opcode).u32(align).u32(offset);
    return this;
  }

  /** `memory.fill` of memory 0 (bulk memory): [offset, value, length] on the stack. */
  memoryFill(): this {
    this.code.byte(W.prefixFC).u32(W.fcMemoryFill).byte(0);
    return this;
  }

  /** `block`, `loop` or `if` with no result. */
  open(opcode: number): this {
    this.code.byte(opcode).byte(VOID);
    return this;
  }

  /** `br` or `br_if` to the label `depth` blocks out. */
  br(opcode: number, depth: number): this {
    this.code.byte(opcode).u32(depth);
    return this;
  }

  /** `br_table` over `depths`, else `otherwise`. */
  brTable(depths: readonly number[], otherwise: number): this {
    this.code.byte(W.brTable).u32(depths.length);
    for (const d of depths) this.code.u32(d);
    this.code.u32(otherwise);
    return this;
  }

  call(index: number): this {
    this.code.byte(W.call).u32(index);
    return this;
  }

  /** `call_indirect` through table 0, the function there of the module's type `type`. */
  callIndirect(type: number): this {
    this.code.byte(W.callIndirect).u32(type).u32(0);
    return this;
  }

  /** The function's body: its locals run-length encoded, its code, `end`. */
  body(): WasmBytes {
    const out = new WasmBytes();
    const runs: [number, number][] = [];
    for (const t of this.locals) {
      const last = runs[runs.length - 1];
      if (last !== undefined && last[1] === t) last[0]++;
      else runs.push([1, t]);
    }
    out.u32(runs.length);
    for (const [n, t] of runs) out.u32(n).byte(t);
    const code = this.code.toBytes();
    out.bytes(code).byte(W.end);
    return out;
  }
}

/** An imported function: its module and field names and its signature. */
export interface WasmImport {
  readonly module: string;
  readonly name: string;
  readonly params: readonly number[];
  readonly results: readonly number[];
}

/** A function signature. */
export interface WasmSignature {
  readonly params: readonly number[];
  readonly results: readonly number[];
}

/**
 * A module's parts: an imported shared memory, an imported table, imported functions, its own
 * functions and their exports, and signatures for `call_indirect`.
 */
export interface WasmModuleParts {
  /** The shared memory imported as `module`.`name`, up to `maximum` 64 KiB pages. */
  readonly memory?: { readonly module: string; readonly name: string; readonly maximum: number };
  /** A table of function references imported as `module`.`name` (table 0). */
  readonly table?: { readonly module: string; readonly name: string };
  readonly imports: readonly WasmImport[];
  /** Its functions (indexed after the imports) and the name each is exported as. */
  readonly functions: readonly { readonly fn: WasmFunction; readonly export: string }[];
  /** Signatures for `call_indirect`: the module's types after its imports' and functions' (in that order). */
  readonly types?: readonly WasmSignature[];
}

function section(out: WasmBytes, id: number, inner: WasmBytes): void {
  out.byte(id).sized(inner);
}

/** The binary module of `parts`. */
export function writeModule(parts: WasmModuleParts): Uint8Array {
  const out = new WasmBytes().bytes([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
  const sigs = [...parts.imports, ...parts.functions.map((f) => f.fn), ...(parts.types ?? [])];
  const types = new WasmBytes().u32(sigs.length);
  for (const s of sigs) {
    types.byte(0x60).u32(s.params.length).bytes(s.params).u32(s.results.length).bytes(s.results);
  }
  section(out, 1, types);
  const m = parts.memory;
  const t = parts.table;
  const imports = new WasmBytes().u32(parts.imports.length + (m === undefined ? 0 : 1) + (t === undefined ? 0 : 1));
  // A shared memory (limits flag 3: a maximum, shared) from 0 pages; a funcref table from 0 elements.
  if (m !== undefined) imports.name(m.module).name(m.name).byte(0x02).byte(0x03).u32(0).u32(m.maximum);
  if (t !== undefined) imports.name(t.module).name(t.name).byte(0x01).byte(0x70).byte(0x00).u32(0);
  parts.imports.forEach((f, k) => {
    imports.name(f.module).name(f.name).byte(0x00).u32(k);
  });
  section(out, 2, imports);
  const funcs = new WasmBytes().u32(parts.functions.length);
  parts.functions.forEach((_, k) => {
    funcs.u32(parts.imports.length + k);
  });
  section(out, 3, funcs);
  const exports = new WasmBytes().u32(parts.functions.length);
  parts.functions.forEach((f, k) => {
    exports
      .name(f.export)
      .byte(0x00)
      .u32(parts.imports.length + k);
  });
  section(out, 7, exports);
  const code = new WasmBytes().u32(parts.functions.length);
  for (const f of parts.functions) code.sized(f.fn.body());
  section(out, 10, code);
  return out.toBytes();
}
