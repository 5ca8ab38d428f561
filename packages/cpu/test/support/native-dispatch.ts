import type { ArgSpec, CorpusFunction, IntType } from '../../src/testing/corpus-manifest.js';

const C_TYPE: Record<IntType, string> = {
  u8: 'uint8_t',
  i8: 'int8_t',
  u16: 'uint16_t',
  i16: 'int16_t',
  u32: 'uint32_t',
  i32: 'int32_t',
  u64: 'uint64_t',
  i64: 'int64_t',
};

function argument(spec: ArgSpec, i: number): string {
  if (spec.kind === 'int') return `(${C_TYPE[spec.type]})a[${i}]`;
  if (spec.kind === 'length') return `a[${i}]`;
  return `(void *)(uintptr_t)a[${i}]`;
}

function callCase(f: CorpusFunction, index: number): string {
  const call = `${f.name}(${f.args.map(argument).join(', ')})`;
  switch (f.returns) {
    case 'void':
      return `\tcase ${index}: ${call}; return 0;`;
    case 'u128':
    case 'i128':
      return `\tcase ${index}: { u128 v = (u128)${call}; *hi = (uint64_t)(v >> 64); return (uint64_t)v; }`;
    default:
      // Signed types widen through int64_t (sign extension), unsigned ones zero-extend.
      return f.returns.startsWith('i')
        ? `\tcase ${index}: return (uint64_t)(int64_t)${call};`
        : `\tcase ${index}: return (uint64_t)${call};`;
  }
}

/**
 * C source of `int3_dispatch(fn, a, hi)`, the native call-runner's switch over the corpus: argument
 * casts to each C type and the result normalised to 64 bits, from the manifest.
 */
export function nativeDispatchSource(functions: readonly CorpusFunction[]): string {
  return [
    '/* Generated from src/testing/corpus-manifest.ts: do not edit. */',
    '#include "corpus.h"',
    '',
    'uint64_t int3_dispatch(unsigned fn, const uint64_t *a, uint64_t *hi);',
    '',
    'uint64_t int3_dispatch(unsigned fn, const uint64_t *a, uint64_t *hi)',
    '{',
    '\t*hi = 0;',
    '\tswitch (fn) {',
    ...functions.map(callCase),
    '\tdefault: return 0xdeaddeaddeaddeadull;',
    '\t}',
    '}',
    '',
  ].join('\n');
}
