/**
 * A span of program text, as bpftrace's locations are: 1-based line and column of the first
 * character, and the column just past the last one (`stdin:1:12-18` covers columns 12 to 17).
 *
 * @see bpftrace src/ast/location.h SourceLocation
 */
export interface SourceLocation {
  readonly line: number;
  readonly column: number;
  readonly endLine: number;
  readonly endColumn: number;
}

/** The span from the start of `a` to the end of `b` (bpftrace's `operator+` on locations). */
export function joinLocations(a: SourceLocation, b: SourceLocation): SourceLocation {
  const startA = a.line < b.line || (a.line === b.line && a.column <= b.column);
  const endB = b.endLine > a.endLine || (b.endLine === a.endLine && b.endColumn >= a.endColumn);
  return {
    line: startA ? a.line : b.line,
    column: startA ? a.column : b.column,
    endLine: endB ? b.endLine : a.endLine,
    endColumn: endB ? b.endColumn : a.endColumn,
  };
}
