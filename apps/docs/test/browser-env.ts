import { type ChromiumLookup, findChromium } from '../src/browser/find-chromium.js';

/**
 * The browser tests' Chromium, decided once per file: found, or missing. When it is missing and
 * CI=true the tests must fail naming the package; otherwise they are skipped with one line saying why
 * and how to enable them (the bootstrap installs it when it runs as root with apt).
 */
export const chromium: ChromiumLookup = findChromium(process.env);
export const skipBrowser = !chromium.found && process.env.CI !== 'true';

if (skipBrowser && !chromium.found) {
  console.log(
    `browser tests skipped: ${chromium.why}; install it (apt-get install chromium) or set INT3_CHROMIUM=/path/to/chromium`,
  );
}

/** The Chromium path, or an error naming the missing package (CI=true). */
export function chromiumPath(): string {
  if (!chromium.found) {
    throw new Error(
      `browser tests need Chromium: ${chromium.why}. Install Debian's chromium package (apt-get install chromium)`,
    );
  }
  return chromium.path;
}
