export { createProgram, VERSION } from './program.js';
