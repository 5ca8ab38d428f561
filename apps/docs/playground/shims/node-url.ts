/** `url.fileURLToPath` for any URL: its path (in the browser a module's URL is http(s), not file:). */
export function fileURLToPath(url: string | URL): string {
  return decodeURIComponent(new URL(String(url)).pathname);
}

/** `url.pathToFileURL`. */
export function pathToFileURL(path: string): URL {
  return new URL(`file://${path}`);
}

export default { fileURLToPath, pathToFileURL };
