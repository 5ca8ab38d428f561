/// <reference types="vite/client" />

declare module 'virtual:int3-image' {
  /** The kernel image, workloads and modules, base64, by path under packages/kernel/image. */
  const files: Record<string, string>;
  export default files;
}
