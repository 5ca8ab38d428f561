#!/usr/bin/env node
// Writes the interpreter's dispatch (the `switch (i.op)` in Cpu.run) into src/cpu.ts from
// src/semantics/interpreter-dispatch.ts, between the markers there. Run after a build (`tsc -b`: it
// imports dist/), then rebuild; src/semantics/interpreter-dispatch.spec.ts fails while the two differ.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spliceDispatch } from '../dist/semantics/interpreter-dispatch.js';

const file = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'cpu.ts');
const before = readFileSync(file, 'utf8');
const after = spliceDispatch(before);
if (after === before) console.log('int3: src/cpu.ts dispatch is up to date');
else {
  writeFileSync(file, after);
  console.log('int3: src/cpu.ts dispatch regenerated');
}
