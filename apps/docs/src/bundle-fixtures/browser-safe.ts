import { join } from 'node:path';

export function joined(a: string, b: string): string {
  return join(a, b);
}
