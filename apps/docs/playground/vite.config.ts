import { defineConfig } from 'vite';
import { playgroundPlugins } from '../src/browser-bundle-plugins.js';

/**
 * The playground's worker alone, as a library build: a quick check of the browser bundle while
 * working on it (`npx vite build -c playground/vite.config.ts`); the site builds it with the page.
 */
export default defineConfig({
  plugins: playgroundPlugins(),
  build: {
    outDir: 'test/.out/worker',
    emptyOutDir: true,
    minify: false,
    lib: { entry: 'playground/worker.ts', formats: ['es'], fileName: 'worker' },
  },
});
