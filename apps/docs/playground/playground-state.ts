/** Everything a playground run depends on: what a shared link carries. */
export interface PlaygroundState {
  /** kprobe_events lines. */
  readonly definitions: readonly string[];
  /** `EVENT=EXPR` (or `GROUP/EVENT=EXPR`) filters, as `int3 trace --filter`. */
  readonly filters: readonly string[];
  /** Workloads with their arguments (`cat /etc/motd`), run one after another. */
  readonly workloads: readonly string[];
  readonly cpus: number;
  /** False: `echo 0 > /proc/sys/debug/kprobes-optimization` first, so every hit traps. */
  readonly optimize: boolean;
  /** Guest instructions one `run` may retire before it is stopped. */
  readonly budget: number;
  /** `int3 tracefs` lines typed in the shell after the run, replayed in order. */
  readonly shell: readonly string[];
}

/** The state of a fresh page: the kprobetrace documentation's first example. */
export const DEFAULT_STATE: PlaygroundState = Object.freeze({
  definitions: ['p:myprobe do_sys_open filename=+0(%si):string'],
  filters: [],
  workloads: ['cat /etc/motd'],
  cpus: 2,
  optimize: true,
  budget: 50_000_000,
  shell: [],
});

/** The URL fragment for a state: `#run=` and the state's JSON in base64url. */
export function encodeState(state: PlaygroundState): string {
  const bytes = new TextEncoder().encode(JSON.stringify(state));
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return `#run=${btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '')}`;
}

/** The state a fragment holds, or undefined when it holds none (or a damaged one). */
export function decodeState(hash: string): PlaygroundState | undefined {
  const m = /^#run=([A-Za-z0-9_-]+)$/.exec(hash);
  if (m === null) return undefined;
  try {
    const binary = atob(m[1].replaceAll('-', '+').replaceAll('_', '/'));
    const json = JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))));
    const strings = (v: unknown) => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);
    const cpus = Number(json.cpus);
    const budget = Number(json.budget);
    return {
      definitions: strings(json.definitions),
      filters: strings(json.filters),
      workloads: strings(json.workloads),
      cpus: Number.isInteger(cpus) && cpus >= 1 && cpus <= 8 ? cpus : DEFAULT_STATE.cpus,
      optimize: json.optimize !== false,
      budget: Number.isSafeInteger(budget) && budget > 0 ? budget : DEFAULT_STATE.budget,
      shell: strings(json.shell),
    };
  } catch {
    return undefined;
  }
}

/** A word quoted for the tracefs shell (as sh would take it): `'…'`, a quote inside as `'\''`. */
export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** Where a filter goes: `EVENT=EXPR` is `events/kprobes/EVENT/filter`; undefined when there is no `=`. */
export function filterWrite(filter: string): { readonly path: string; readonly expr: string } | undefined {
  const eq = filter.indexOf('=');
  if (eq <= 0) return undefined;
  const event = filter.slice(0, eq).trim();
  const path = event.includes('/') ? `events/${event}/filter` : `events/kprobes/${event}/filter`;
  return { path, expr: filter.slice(eq + 1).trim() };
}
