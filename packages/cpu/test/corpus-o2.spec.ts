/**
 * The C corpus compiled by gcc at -O2 with the kernel flags, run in the emulator and natively on the
 * same generated inputs (see support/corpus-differential.ts). gcc runs at test time; artefacts are
 * cached in test/.build.
 */
import { describeCorpusDifferential } from './support/corpus-differential.js';

describeCorpusDifferential('-O2');
