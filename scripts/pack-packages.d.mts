// Types of pack-packages.mjs, for the TypeScript tests that import it.

/** The workspace root. */
export declare const WORKSPACE_ROOT: string;
/** The published packages, dependencies first (directory under packages/ → package name). */
export declare const PUBLISHED_PACKAGES: Readonly<Record<string, string>>;
/** Packs each package with `pnpm pack` into `destination`; package name → absolute tarball path. */
export declare function packPackages(destination: string, dirs?: readonly string[]): Record<string, string>;
/** A fresh npm project under os.tmpdir() with the tarballs and `dependencies` installed by npm. */
export declare function createConsumerProject(options: {
  readonly tarballs: Record<string, string>;
  readonly dependencies?: Record<string, string>;
  readonly prefix?: string;
}): { readonly dir: string; remove(): void };
