/** POSIX `path` for the few functions the int3 packages call in the browser. */
export function join(...parts: string[]): string {
  return normalize(parts.filter((p) => p !== '').join('/'));
}

/** `path.normalize`: `.` and `..` resolved, repeated slashes folded. */
export function normalize(path: string): string {
  const absolute = path.startsWith('/');
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..' && out.length > 0 && out[out.length - 1] !== '..') out.pop();
    else if (part !== '..' || !absolute) out.push(part);
  }
  const trailing = path.endsWith('/') && out.length > 0 ? '/' : '';
  return `${absolute ? '/' : ''}${out.join('/')}${trailing}` || '.';
}

/** `path.dirname`. */
export function dirname(path: string): string {
  if (/^\/+$/.test(path)) return '/';
  const i = path.replace(/\/+$/, '').lastIndexOf('/');
  return i < 0 ? '.' : i === 0 ? '/' : path.slice(0, i);
}

/** `path.basename`, with an optional suffix to drop. */
export function basename(path: string, suffix?: string): string {
  const base = path.replace(/\/+$/, '').split('/').pop() ?? '';
  return suffix !== undefined && base.endsWith(suffix) && base !== suffix ? base.slice(0, -suffix.length) : base;
}

/** `path.resolve` from `/`. */
export function resolve(...parts: string[]): string {
  let path = '';
  for (const p of parts) path = p.startsWith('/') ? p : `${path}/${p}`;
  return normalize(path.startsWith('/') ? path : `/${path}`);
}

/** `path.isAbsolute`. */
export function isAbsolute(path: string): boolean {
  return path.startsWith('/');
}

export const sep = '/';

export default { join, normalize, dirname, basename, resolve, isAbsolute, sep };
