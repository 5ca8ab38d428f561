import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitepress';
import { playgroundPlugins } from '../src/browser-bundle-plugins';
import { int3Examples } from '../src/int3-examples';
import { readmeSections } from '../src/readme-section';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..', '..');
const cliBin = join(repo, 'packages', 'cli', 'dist', 'bin.js');

/** TypeDoc's sidebar for the API reference (written by `typedoc` before the site is built). */
function apiSidebar(): unknown[] {
  try {
    return JSON.parse(readFileSync(join(here, '..', 'pages', 'api', 'typedoc-sidebar.json'), 'utf8'));
  } catch {
    return [];
  }
}

export default defineConfig({
  title: 'int3',
  description: 'Linux kprobes on an emulated x86-64 kernel: learn and prototype kernel tracing without root',
  srcDir: 'pages',
  // No favicon file: an empty one, so browsers do not ask the server root (404) under any base path.
  head: [['link', { rel: 'icon', href: 'data:,' }]],
  outDir: 'site',
  cleanUrls: false,
  lastUpdated: false,
  vite: {
    plugins: playgroundPlugins(),
    worker: { format: 'es', plugins: () => playgroundPlugins() },
    optimizeDeps: { exclude: ['iced-x86'] },
  },
  markdown: {
    config: (md) => {
      int3Examples(md, {
        bin: cliBin,
        links: { modules: join(repo, 'packages', 'kernel', 'image', 'modules'), examples: join(repo, 'examples') },
      });
      readmeSections(md, () => readFileSync(join(repo, 'README.md'), 'utf8'));
    },
  },
  themeConfig: {
    nav: [
      { text: 'Guide', link: '/guide/getting-started' },
      { text: 'Playground', link: '/playground' },
      { text: 'Reference', link: '/reference/kprobe-events' },
      { text: 'API', link: '/api/' },
    ],
    sidebar: {
      '/api/': [{ text: 'API reference', items: apiSidebar() as never }],
      '/': [
        {
          text: 'Guide',
          items: [
            { text: 'Getting started', link: '/guide/getting-started' },
            { text: 'Playground', link: '/playground' },
            { text: 'Concepts: how kprobes work', link: '/guide/concepts' },
            { text: 'Record and replay', link: '/guide/record-replay' },
            { text: 'Time travel with gdb', link: '/guide/time-travel-gdb' },
            { text: 'Writing a tracer plugin', link: '/guide/plugins' },
            { text: 'bpftrace', link: '/guide/bpftrace' },
            { text: 'Writing a kernel module', link: '/guide/modules' },
            { text: 'The guest kernel', link: '/guide/guest-kernel' },
            { text: 'int3 and Linux', link: '/guide/int3-and-linux' },
            { text: 'Performance', link: '/guide/performance' },
          ],
        },
        {
          text: 'Reference',
          items: [
            { text: 'kprobe_events and tracefs', link: '/reference/kprobe-events' },
            { text: 'Event triggers and histograms', link: '/reference/triggers' },
            { text: 'The event log', link: '/reference/event-log' },
            { text: 'Command line', link: '/reference/cli' },
            { text: 'API', link: '/api/' },
          ],
        },
      ],
    },
    search: { provider: 'local' },
  },
});
