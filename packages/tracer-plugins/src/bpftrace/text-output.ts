import type { Value } from './bpf-map.js';
import type { BpftraceOutput, BpftraceSink } from './bpftrace-output.js';
import type { BpfType } from './bpftrace-type.js';
import { formatKeyText, formatValueText } from './format-value.js';
import type { HistRow } from './hist-buckets.js';
import type { RenderedMap, RenderedValue } from './render-map.js';

/** Width of a histogram's bar of `@`. */
const BAR_WIDTH = 52;

/**
 * bpftrace's text output: `Attached N probes` on stderr; printf text as is; maps as `@m: v`,
 * `@m[key]: v`, stats as `{ .count = …, .average = …, .total = … }`, histograms as a row per bucket
 * and an empty line after; two newlines when the main loop ends.
 *
 * @see bpftrace src/output/text.cpp TextOutput
 */
export class TextOutput implements BpftraceOutput {
  constructor(private readonly sink: BpftraceSink) {}

  attachedProbes(n: number): void {
    this.sink.stderr(`Attached ${n} probe${n === 1 ? '' : 's'}\n`);
  }

  printf(text: string): void {
    this.sink.stdout(text);
  }

  value(v: Value, t: BpfType): void {
    this.sink.stdout(`${formatValueText(v, t)}\n`);
  }

  time(text: string): void {
    this.sink.stdout(text);
  }

  end(): void {
    this.sink.stdout('\n\n');
  }

  map(m: RenderedMap): void {
    this.sink.stdout(mapText(m));
  }
}

/** A rendered map as the text output prints it. */
export function mapText(m: RenderedMap): string {
  let out = '';
  for (const { key, value } of m.entries) {
    const head = m.scalar ? m.name : `${m.name}[${formatKeyText(key, m.keyTypes)}]`;
    if (value.k === 'hist') out += `${head}:\n${histText(value.rows)}\n`;
    else out += `${head}: ${valueText(value)}\n`;
  }
  return out;
}

function valueText(v: Exclude<RenderedValue, { k: 'hist' }>): string {
  if (v.k === 'stats') return `{ .count = ${v.count}, .average = ${v.average}, .total = ${v.total} }`;
  return formatValueText(v.v, v.t);
}

/** The bucket's label: `(..., 0)`, `[0]`, `[2, 4)`, `[1K, 2K)`, `[10, ...)`. */
export function rowLabel(r: HistRow): string {
  if (r.lo === undefined) return `(..., ${r.hi?.label})`;
  if (r.hi === undefined) return `[${r.lo.label}, ...)`;
  if (r.hi.value === r.lo.value + 1n) return `[${r.lo.label}]`;
  return `[${r.lo.label}, ${r.hi.label})`;
}

/** Histogram rows: label in 16 columns, count right-aligned in 8, and a bar scaled to the largest count. */
export function histText(rows: readonly HistRow[]): string {
  let max = 0;
  for (const r of rows) max = Math.max(max, r.count);
  let out = '';
  for (const r of rows) {
    // bpftrace computes the bar in float: (count / (float)max) * 52, truncated.
    const width =
      max === 0 ? 0 : Math.trunc(Math.fround(Math.fround(Math.fround(r.count) / Math.fround(max)) * BAR_WIDTH));
    out += `${rowLabel(r).padEnd(16)}${String(r.count).padStart(8)} |${'@'.repeat(width).padEnd(BAR_WIDTH)}|\n`;
  }
  return out;
}
