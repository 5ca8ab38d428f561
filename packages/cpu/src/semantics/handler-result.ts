/**
 * What a handler of the interpreter's table returns (interpreter-handlers.ts): the instruction went
 * on sequentially; 0 or more is the case's `exit` after it left the sequential path (0: none).
 */
export const SEQUENTIAL = -1;
/** What the table's entry for an op the loop runs itself returns (a gate, a debug stop: they use its locals). */
export const IN_LOOP = -2;
