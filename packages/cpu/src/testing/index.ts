/**
 * `@int3/cpu/testing`: the CPU's differential-test kit, for other packages' tests — the C corpus and its
 * manifest of functions with their argument types, how a call is marshalled and its result normalised,
 * fast-check arbitraries of valid calls, and the fuzz settings (`INT3_FUZZ_RUNS`, `INT3_FUZZ_SEED`).
 * The arbitraries need `fast-check` (an optional peer dependency).
 *
 * @packageDocumentation
 */
export { corpusCallArbitrary, intArbitrary } from './corpus-arbitrary.js';
export {
  type CallBuffer,
  type CorpusCall,
  type CorpusResult,
  describeCall,
  intWidth,
  isSigned,
  normaliseReturn,
  toHex,
  toRegister,
} from './corpus-call.js';
export { CORPUS_DIR } from './corpus-dir.js';
export {
  type ArgSpec,
  type BufferContent,
  CORPUS_FUNCTIONS,
  type CorpusFunction,
  type IntType,
  type ReturnType,
} from './corpus-manifest.js';
export { FUZZ_RUNS, FUZZ_SEED, seedFor } from './fuzz-settings.js';
