import { joined } from './front-door.js';

export const result = joined('/a', 'b');
