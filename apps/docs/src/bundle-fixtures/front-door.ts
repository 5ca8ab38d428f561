// A package's front door exporting both, as @int3/tracer-plugins does.
export { joined } from './browser-safe.js';
export { track } from './node-only.js';
