/**
 * The playground's file system: the files `node:fs` reads in the browser (the kernel image, the
 * workloads, the modules), registered by path under `packages/kernel/image` ('vmlinux',
 * 'user/bin/cat', 'modules/hello.ko'). A path is found when it is a registered one or ends with
 * `/` + one, so the kernel's `IMAGE_DIR/vmlinux` and a shell's `insmod modules/hello.ko` both work.
 */
const files = new Map<string, Uint8Array>();

/** Adds (or replaces) a file. */
export function addFile(path: string, bytes: Uint8Array): void {
  files.set(path.replace(/^\/+/, ''), bytes);
}

/** The file at `path`, or undefined. */
export function lookupFile(path: string): Uint8Array | undefined {
  const p = path.replace(/^\.\//, '');
  const exact = files.get(p.replace(/^\/+/, ''));
  if (exact !== undefined) return exact;
  for (const [key, bytes] of files) if (p.endsWith(`/${key}`)) return bytes;
  return undefined;
}
