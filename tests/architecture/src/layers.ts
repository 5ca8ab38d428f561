/**
 * The packages in the order they may import each other: a package imports only packages before it
 * (`cli → tracer-plugins → kprobes → kernel → cpu`, the arrows of the README).
 */
export const LAYERS = ['cpu', 'kernel', 'kprobes', 'tracer-plugins', 'cli'] as const;

/** A workspace package the direction rule orders. */
export type Layer = (typeof LAYERS)[number];

/** The rank of `name` (`@int3/<name>`) in {@link LAYERS}, or undefined for a package outside them. */
export function layerOf(name: string): number | undefined {
  const i = (LAYERS as readonly string[]).indexOf(name);
  return i < 0 ? undefined : i;
}
