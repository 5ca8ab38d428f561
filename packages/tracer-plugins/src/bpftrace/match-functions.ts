import type { Kallsyms } from '@int3/kernel';

/** A bpftrace wildcard (`*`, `?`, `[...]`) as an anchored regular expression. */
function globRegExp(glob: string): RegExp {
  let re = '';
  for (const c of glob) {
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[' || c === ']') re += c;
    else re += c.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/**
 * The kernel functions an attach point's function (and module) names, in address order, each once:
 * the name itself when it has no wildcard and exists, every text symbol a wildcard matches.
 *
 * @see bpftrace src/probe_matcher.cpp ProbeMatcher::get_matches_for_ap()
 */
export function matchFunctions(kallsyms: Kallsyms, func: string, module?: string): string[] {
  const wild = /[*?[]/.test(func);
  const re = wild ? globRegExp(func) : undefined;
  const seen = new Set<string>();
  for (const s of kallsyms.all()) {
    if (s.type !== 't' && s.type !== 'T') continue;
    if (module !== undefined && s.module !== module) continue;
    if (re ? re.test(s.name) : s.name === func) seen.add(s.name);
  }
  return [...seen];
}
