import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CORPUS_FUNCTIONS } from '../../src/testing/corpus-manifest.js';
import { CORPUS_DIR, gccBuildCached, writeGeneratedSource } from './gcc-build.js';
import { HOST_CORPUS_CFLAGS, KERNEL_CFLAGS, KERNEL_LDFLAGS, type OptLevel } from './kernel-flags.js';
import { nativeDispatchSource } from './native-dispatch.js';

/** The corpus's C files, sorted (the order fixes the image layout). */
export function corpusSources(): string[] {
  return readdirSync(CORPUS_DIR)
    .filter((f) => f.endsWith('.c'))
    .sort()
    .map((f) => join(CORPUS_DIR, f));
}

const HEADER = join(CORPUS_DIR, 'corpus.h');

/** Builds (or finds cached) the corpus as a kernel-style ET_EXEC image at one optimisation level. */
export function buildCorpusImage(opt: OptLevel): string {
  return gccBuildCached({
    output: `corpus${opt}.elf`,
    sources: corpusSources(),
    dependencies: [HEADER],
    flags: [opt, ...KERNEL_CFLAGS, ...KERNEL_LDFLAGS, `-I${CORPUS_DIR}`],
    libs: ['-lgcc'],
  });
}

/** Builds (or finds cached) the host call-runner: the corpus at -O2 plus the generated dispatcher. */
export function buildNativeCallRunner(): string {
  const dispatch = writeGeneratedSource('dispatch.c', nativeDispatchSource(CORPUS_FUNCTIONS));
  const runner = join(CORPUS_DIR, '..', 'test', 'native', 'call-runner.c');
  const corpus = gccBuildCached({
    output: 'corpus-host.o',
    sources: [...corpusSources(), dispatch],
    dependencies: [HEADER],
    // -r: one relocatable object, compiled with the kernel flags (no SSE, no red zone) but for user space.
    flags: ['-O2', ...HOST_CORPUS_CFLAGS, '-nostdlib', '-r', `-I${CORPUS_DIR}`],
  });
  return gccBuildCached({ output: 'call-runner', sources: [runner, corpus], flags: ['-O2'] });
}

/** Builds (or finds cached) the host instruction runner. */
export function buildNativeInsnRunner(): string {
  const runner = join(CORPUS_DIR, '..', 'test', 'native', 'insn-runner.c');
  return gccBuildCached({ output: 'insn-runner', sources: [runner], flags: ['-O2'] });
}
