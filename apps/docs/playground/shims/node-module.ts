/** `module.createRequire`: there is no CommonJS loader in the playground; a call says so. */
export function createRequire(_from: string): (id: string) => never {
  return (id: string) => {
    throw new Error(`require('${id}') is not available in the playground`);
  };
}

export default { createRequire };
