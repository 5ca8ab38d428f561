import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `packages/cpu`, whatever the working directory. */
export const CPU_PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The C corpus shared by the differential tests, the sample image and the benchmark. */
export { CORPUS_DIR } from '../../src/testing/corpus-dir.js';

/** Where compiled artefacts are cached (git-ignored), keyed by a hash of sources and flags. */
export const BUILD_CACHE_DIR = join(CPU_PACKAGE_DIR, 'test', '.build');

/** One compiler invocation: `gcc <flags> -o <output> <sources> <libs>`. */
export interface GccJob {
  /** File name of the artefact inside its cache directory. */
  readonly output: string;
  readonly sources: readonly string[];
  readonly flags: readonly string[];
  readonly libs?: readonly string[];
  /** Extra files whose content changes the artefact (headers, generated code). */
  readonly dependencies?: readonly string[];
}

let gccVersion: string | undefined;

function compilerVersion(): string {
  gccVersion ??= execFileSync('gcc', ['--version'], { encoding: 'utf8' }).split('\n')[0];
  return gccVersion;
}

/** The cache key of a job: sources, dependencies, flags and the compiler version. */
export function gccJobKey(job: GccJob): string {
  const h = createHash('sha256');
  h.update(compilerVersion());
  h.update(JSON.stringify([job.output, job.flags, job.libs ?? []]));
  for (const file of [...job.sources, ...(job.dependencies ?? [])]) {
    h.update(basename(file));
    h.update(readFileSync(file));
  }
  return h.digest('hex').slice(0, 16);
}

/**
 * Compiles a job unless its artefact is already cached, and returns the artefact's path. Output is
 * written under a temporary name and renamed, so test files building the same job in parallel never
 * see a half-written file.
 */
export function gccBuildCached(job: GccJob): string {
  const dir = join(BUILD_CACHE_DIR, gccJobKey(job));
  const target = join(dir, job.output);
  if (existsSync(target)) return target;
  mkdirSync(dir, { recursive: true });
  const temporary = `${target}.${process.pid}.tmp`;
  try {
    execFileSync('gcc', [...job.flags, '-o', temporary, ...job.sources, ...(job.libs ?? [])], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`gcc failed building ${job.output}:\n${stderr}`);
  }
  renameSync(temporary, target);
  return target;
}

/** Writes generated source into the cache (content-addressed) and returns its path. */
export function writeGeneratedSource(name: string, text: string): string {
  const key = createHash('sha256').update(text).digest('hex').slice(0, 16);
  const dir = join(BUILD_CACHE_DIR, 'generated', key);
  const file = join(dir, name);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, text);
    renameSync(temporary, file);
  }
  return file;
}
