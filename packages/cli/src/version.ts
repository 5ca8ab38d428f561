/** The version printed by `int3 --version` (and `-V`). */
export const VERSION = '0.1.0';
