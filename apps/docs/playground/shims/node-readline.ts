/** `readline.createInterface`: the playground has its own line input; a call says so. */
export function createInterface(): never {
  throw new Error('readline is not available in the playground');
}

export default { createInterface };
