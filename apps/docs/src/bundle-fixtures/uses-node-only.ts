import { track } from './front-door.js';

export const result = track();
