import fc from 'fast-check';
import { type CallBuffer, type CorpusCall, intWidth, isSigned, toRegister } from './corpus-call.js';
import type { ArgSpec, BufferContent, CorpusFunction, IntType } from './corpus-manifest.js';

function typeRange(type: IntType): [bigint, bigint] {
  const w = BigInt(intWidth(type));
  return isSigned(type) ? [-(1n << (w - 1n)), (1n << (w - 1n)) - 1n] : [0n, (1n << w) - 1n];
}

/**
 * Integers of a C type, biased to the values that break arithmetic: the type's extremes and their
 * neighbours, 0, ±1, powers of two and small values, besides the whole range.
 */
export function intArbitrary(type: IntType, min?: bigint, max?: bigint): fc.Arbitrary<bigint> {
  const [tmin, tmax] = typeRange(type);
  const lo = min ?? tmin;
  const hi = max ?? tmax;
  const w = BigInt(intWidth(type));
  const edges = [tmin, tmin + 1n, tmax, tmax - 1n, 0n, 1n, 2n, -1n, -2n, 7n, 10n, -7n, 1n << (w / 2n)];
  for (let b = 0n; b < w; b += 1n) edges.push(1n << b, -(1n << b), (1n << b) - 1n);
  const inRange = [...new Set(edges)].filter((v) => v >= lo && v <= hi);
  const smallLo = lo > -64n ? lo : -64n;
  const smallHi = hi < 64n ? hi : 64n;
  return fc.oneof(
    { weight: 4, arbitrary: fc.bigInt({ min: lo, max: hi }) },
    { weight: 2, arbitrary: fc.constantFrom(...inRange) },
    { weight: 1, arbitrary: fc.bigInt({ min: smallLo, max: smallHi }) },
  );
}

function littleEndian(values: readonly number[], element: number): Uint8Array {
  const bytes = new Uint8Array(values.length * element);
  values.forEach((v, i) => {
    for (let k = 0; k < element; k++) bytes[i * element + k] = k < 4 ? (v >>> (8 * k)) & 0xff : 0;
  });
  return bytes;
}

function bufferArbitrary(element: number, minLength: number, maxLength: number, content: BufferContent) {
  const count = { minLength, maxLength };
  switch (content.kind) {
    case 'random':
      return fc.integer({ min: minLength, max: maxLength }).chain((n) => {
        const size = n * element;
        return fc.uint8Array({ minLength: size, maxLength: size });
      });
    case 'small':
      return fc.array(fc.integer({ min: 0, max: content.max }), count).map((v) => littleEndian(v, element));
    case 'zero':
      return fc.integer({ min: minLength, max: maxLength }).map((n) => new Uint8Array(n * element));
    case 'bytes':
      return fc.array(fc.constantFrom(...content.alphabet), count).map((v) => littleEndian(v, element));
  }
}

type Generated = { kind: 'value'; value: bigint } | { kind: 'buffer'; bytes: Uint8Array; element: number } | null;

function specArbitrary(spec: ArgSpec): fc.Arbitrary<Generated> {
  switch (spec.kind) {
    case 'int':
      return intArbitrary(spec.type, spec.min, spec.max).map((v) => ({
        kind: 'value',
        value: toRegister(spec.type, v),
      }));
    case 'buffer':
      return bufferArbitrary(spec.element, spec.minLength, spec.maxLength, spec.content).map((bytes) => ({
        kind: 'buffer',
        bytes,
        element: spec.element,
      }));
    case 'string':
      return fc
        .array(fc.constantFrom(...spec.alphabet), { maxLength: spec.maxLength })
        .map((chars) => ({ kind: 'buffer', bytes: Buffer.from(`${chars.join('')}\0`, 'latin1'), element: 1 }));
    case 'length':
      return fc.constant(null);
  }
}

/** Calls of corpus function `fn` with arguments drawn as its manifest entry describes. */
export function corpusCallArbitrary(functions: readonly CorpusFunction[], fn: number): fc.Arbitrary<CorpusCall> {
  const f = functions[fn];
  return fc.tuple(...f.args.map(specArbitrary)).map((generated) => {
    const args = [0n, 0n, 0n, 0n, 0n, 0n];
    const buffers: CallBuffer[] = [];
    generated.forEach((g, i) => {
      if (g?.kind === 'value') args[i] = g.value;
      if (g?.kind === 'buffer') buffers.push({ slot: i, bytes: g.bytes });
    });
    f.args.forEach((spec, i) => {
      if (spec.kind !== 'length') return;
      const target = generated[spec.of];
      if (target?.kind === 'buffer') args[i] = BigInt(target.bytes.length / target.element);
    });
    return { fn, args, buffers };
  });
}
