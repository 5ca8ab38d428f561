// A module the browser cannot run (a built-in with no stand-in, a name the fs stand-in lacks), with a
// side effect at load time, as the tracer host and the plugin loader have.
import { AsyncLocalStorage } from 'node:async_hooks';
import { realpathSync } from 'node:fs';

export const HOST = realpathSync('/');

export function track(): unknown {
  return new AsyncLocalStorage();
}
