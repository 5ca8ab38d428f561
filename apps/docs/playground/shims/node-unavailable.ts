/**
 * Stands in for every Node built-in imported only by code the playground's bundle drops (commander,
 * import-meta-resolve), with the names they import. Nothing here works: were any of it kept and called,
 * it says so. The marker lets the browser tests check that nothing kept this module.
 */
export const INT3_NODE_UNAVAILABLE = 'int3: a Node built-in the playground does not have';

function unavailable(): never {
  throw new Error(INT3_NODE_UNAVAILABLE);
}

export const statSync = unavailable;
export const realpathSync = unavailable;
export const fileURLToPath = unavailable;
export const pathToFileURL = unavailable;
export const format = unavailable;
export const inspect = unavailable;
export const builtinModules: readonly string[] = [];

export default { INT3_NODE_UNAVAILABLE };
