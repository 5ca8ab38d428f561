#!/usr/bin/env node
// Writes the generated parts of the cpu package's sources (the interpreter's dispatch, the `switch
// (i.op)` in Cpu.run; CpuState's lazy-flag record; …) from their generators in src/semantics/, between
// the markers in each file (the list is GENERATED_PARTS in src/semantics/generated-parts.ts). Run
// after a build (`tsc -b`: it imports dist/), then rebuild; src/semantics/generated-parts.spec.ts
// fails while a file and its generator differ.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GENERATED_PARTS, splicePart } from '../dist/semantics/generated-parts.js';

const src = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');
for (const part of GENERATED_PARTS) {
  const file = join(src, part.file);
  const before = readFileSync(file, 'utf8');
  const after = splicePart(before, part);
  if (after === before) console.log(`int3: src/${part.file} is up to date`);
  else {
    writeFileSync(file, after);
    console.log(`int3: src/${part.file} regenerated`);
  }
}
