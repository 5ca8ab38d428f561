/**
 * Names this test run, so the browser test files build the site once between them
 * ({@link ensureTestSite}) and a run of unit tests alone builds nothing.
 */
export default function setup(): void {
  process.env.INT3_DOCS_RUN ??= `${process.pid}-${Date.now()}`;
}
