import type { Command } from 'commander';

/** Writes to the root program's configured stdout (so tests can capture it with `configureOutput`). */
export function writeOut(command: Command, text: string): void {
  let root = command;
  while (root.parent) root = root.parent;
  root.configureOutput().writeOut?.(text);
}
