// Preloaded (node --require) by memory.bench.mjs into the CLI it measures: at exit, whatever ends the
// process (a normal return, process.exit, a signal the CLI handles), writes the process's peak
// resident set size in KiB (getrusage's ru_maxrss) to the file named by INT3_PEAK_RSS_FILE.
const { writeFileSync } = require('node:fs');

process.on('exit', () => {
  const file = process.env.INT3_PEAK_RSS_FILE;
  if (file) writeFileSync(file, String(process.resourceUsage().maxRSS));
});
