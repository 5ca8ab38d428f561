import { execFileSync } from 'node:child_process';
import { type CorpusCall, type CorpusResult, toHex } from '../../src/testing/corpus-call.js';

/** A call as one protocol line of `call-runner.c`. */
function callLine(call: CorpusCall): string {
  const words = [call.fn.toString(16), ...call.args.map((a) => a.toString(16)), call.buffers.length.toString(16)];
  for (const b of call.buffers) words.push(b.slot.toString(16), b.bytes.length.toString(16), toHex(b.bytes));
  return words.join(' ');
}

/** Inputs per process: large campaigns are split so one process's output stays well below maxBuffer. */
const CHUNK = 20_000;

/** Spawns a harness once per CHUNK inputs (once for a default run) and returns its output lines. */
export function runBatch(executable: string, lines: readonly string[]): string[] {
  const result: string[] = [];
  for (let start = 0; start < lines.length; start += CHUNK) {
    const chunk = lines.slice(start, start + CHUNK);
    const out = execFileSync(executable, [], {
      input: `${chunk.join('\n')}\n`,
      encoding: 'utf8',
      maxBuffer: 1024 * 1024 * 1024,
    }).split('\n');
    out.pop();
    if (out.length !== chunk.length) {
      throw new Error(`${executable}: ${out.length} result lines for ${chunk.length} inputs`);
    }
    result.push(...out);
  }
  return result;
}

/** Runs a batch of corpus calls natively, in one process, in order. */
export function runNativeCalls(runner: string, calls: readonly CorpusCall[]): CorpusResult[] {
  return runBatch(runner, calls.map(callLine)).map((line) => {
    const [lo, hi, ...buffers] = line.split(' ');
    return { lo: BigInt(`0x${lo}`), hi: BigInt(`0x${hi}`), buffers };
  });
}
