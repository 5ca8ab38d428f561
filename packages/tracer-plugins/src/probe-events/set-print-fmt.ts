import type { ProbeDefinition } from './probe-definition.js';

/**
 * The `print fmt` of a probe event: `"(%lx) name=fmt ...", REC->__probe_ip, REC->name ...` (return
 * probes `"(%lx <- %lx)` with `__probe_func, __probe_ret_ip`); strings use `__get_str(name)`, arrays
 * `{fmt,fmt}` with one reference per element.
 *
 * @see kernel/trace/trace_probe.c __set_print_fmt()
 */
export function setPrintFmt(def: ProbeDefinition): string {
  const ret = def.kind === 'r';
  let fmt = ret ? '"(%lx <- %lx)' : '"(%lx)';
  let refs = ret ? ', REC->__probe_func, REC->__probe_ret_ip' : ', REC->__probe_ip';
  for (const a of def.args) {
    const f = a.type.fmt;
    fmt += ` ${a.name}=${a.count ? `{${Array(a.count).fill(f).join(',')}}` : f}`;
    const ref = (x: string) => (a.type.isString ? `, __get_str(${x})` : `, REC->${x}`);
    if (a.count) for (let j = 0; j < a.count; j++) refs += ref(`${a.name}[${j}]`);
    else refs += ref(a.name);
  }
  return `${fmt}"${refs}`;
}
