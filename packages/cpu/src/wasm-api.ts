/**
 * The part of WebAssembly's JavaScript API this package uses, typed here because it builds without
 * the DOM's lib (which declares it); `null` where the host has no WebAssembly.
 * @see https://webassembly.github.io/spec/js-api/
 */
export interface WasmMemory {
  /** The memory's bytes (a SharedArrayBuffer for a shared memory: never detached when it grows). */
  readonly buffer: ArrayBufferLike;
  /** Grows the memory by `pages` 64 KiB pages; returns its old size in pages; throws past its maximum. */
  grow(pages: number): number;
}

/** A compiled module (opaque here). */
export type WasmModule = object;

/** An instance of a module: its exports by name. */
export interface WasmInstance {
  readonly exports: Readonly<Record<string, unknown>>;
}

/** A table of function references (funcref). */
export interface WasmTable {
  /** Its size in elements. */
  readonly length: number;
  /** Grows it by `delta` elements (null each); returns its old size. */
  grow(delta: number): number;
  /** Sets element `index` to an exported WebAssembly function, or null. */
  set(index: number, value: unknown): void;
}

/** The WebAssembly namespace's members this package uses. */
export interface WasmApi {
  readonly Memory: new (descriptor: { initial: number; maximum: number; shared: boolean }) => WasmMemory;
  readonly Table: new (descriptor: { element: 'anyfunc'; initial: number }) => WasmTable;
  /** Compiles a module's bytes (synchronously). */
  readonly Module: new (
    bytes: Uint8Array,
  ) => WasmModule;
  /** Instantiates a module with its imports, by module and field name. */
  readonly Instance: new (
    module: WasmModule,
    imports: Record<string, Record<string, unknown>>,
  ) => WasmInstance;
}

/** The host's WebAssembly, or null. */
export const WASM: WasmApi | null = (globalThis as { WebAssembly?: WasmApi }).WebAssembly ?? null;
