/**
 * A shell pattern (`*`, `?`, `[...]`) as an anchored regular expression, as tracefs matches
 * `set_ftrace_filter` and event names.
 *
 * @see kernel/trace/trace.c (glob matching in filters)
 * @example
 * globToRegExp('sys_*').test('sys_mkdir'); // true
 */
export function globToRegExp(glob: string): RegExp {
  let source = '';
  for (const c of glob) {
    if (c === '*') source += '.*';
    else if (c === '?') source += '.';
    else if (c === '[' || c === ']') source += c;
    else source += c.replace(/[.+^${}()|\\/-]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}
