import { CliError } from '../cli-error.js';
import type { GuestImage } from './load-image.js';
import { suggestNames } from './suggest-names.js';

/**
 * The address of the function `name` in the image (or `name` itself when it is a `0x` address).
 * An unknown name is a usage {@link CliError} suggesting the nearest function names; a data object
 * is refused.
 */
export function resolveFunction(image: GuestImage, name: string, command: string): bigint {
  if (/^0x[0-9a-f]+$/i.test(name)) return BigInt(name);
  const symbol = image.symbols.lookup(name);
  if (symbol === undefined) {
    const functions = [...image.symbols.names()].filter((n) => image.symbols.lookup(n)?.type !== 'object');
    const near = suggestNames(name, functions);
    const hint =
      near.length > 0 ? `; did you mean ${near.join(', ')}?` : ` (${functions.length} functions; list them with nm)`;
    throw new CliError('usage', `unknown symbol '${name}' in ${image.path}${hint}`, command);
  }
  if (symbol.type === 'object') throw new CliError('usage', `'${name}' is a data object, not a function`, command);
  return symbol.address;
}
