import type { Value } from './bpf-map.js';
import type { BpftraceOutput, BpftraceSink } from './bpftrace-output.js';
import type { BpfType } from './bpftrace-type.js';
import { formatKeyJson, formatValueJson, jsonInteger, jsonString } from './format-value.js';
import type { HistRow } from './hist-buckets.js';
import type { RenderedMap, RenderedValue } from './render-map.js';

/**
 * bpftrace's JSON Lines output (`-f json`): one object per line, `{"type": …, "data": …}` —
 * `attached_probes`, `printf`, `value`, `time`, and `map`/`stats`/`hist` for maps (an empty keyed map
 * prints nothing).
 *
 * @see bpftrace src/output/json.cpp JsonOutput
 */
export class JsonOutput implements BpftraceOutput {
  constructor(private readonly sink: BpftraceSink) {}

  attachedProbes(n: number): void {
    this.sink.stdout(`{"type": "attached_probes", "count": ${n}, "data": {"probes": ${n}}}\n`);
  }

  printf(text: string): void {
    this.sink.stdout(`{"type": "printf", "data": ${jsonString(text)}}\n`);
  }

  value(v: Value, t: BpfType): void {
    this.sink.stdout(`{"type": "value", "data": ${formatValueJson(v, t)}}\n`);
  }

  time(text: string): void {
    this.sink.stdout(`{"type": "time", "data": ${jsonString(text)}}\n`);
  }

  end(): void {}

  map(m: RenderedMap): void {
    const line = mapJson(m);
    if (line !== undefined) this.sink.stdout(line);
  }
}

/** A rendered map as one JSON line, undefined for an empty keyed map. */
export function mapJson(m: RenderedMap): string | undefined {
  let data: string;
  if (m.scalar) {
    if (m.entries.length === 0) return undefined;
    data = valueJson(m.entries[0].value);
  } else {
    if (m.entries.length === 0) return undefined;
    data = `{${m.entries.map((e) => `${formatKeyJson(e.key, m.keyTypes)}: ${valueJson(e.value)}`).join(', ')}}`;
  }
  return `{"type": "${m.type}", "data": {${jsonString(m.name)}: ${data}}}\n`;
}

function valueJson(v: RenderedValue): string {
  if (v.k === 'value') return formatValueJson(v.v, v.t);
  if (v.k === 'stats') {
    return `{"count": ${jsonInteger(v.count)}, "average": ${jsonInteger(v.average)}, "total": ${jsonInteger(v.total)}}`;
  }
  return `[${v.rows.map(rowJson).join(',')}]`;
}

function rowJson(r: HistRow): string {
  const min = r.lo === undefined ? '' : `"min": ${jsonInteger(r.lo.value)}, `;
  const max = r.hi === undefined ? '' : `"max": ${jsonInteger(r.hi.value - 1n)}, `;
  return `{${min}${max}"count": ${r.count}}`;
}
