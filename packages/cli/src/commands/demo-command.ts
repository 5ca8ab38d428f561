import { disassemble } from '@int3/cpu';
import type { Command } from 'commander';
import type { CallArgument } from '../call/call-argument.js';
import { describeStop, hex64 } from '../call/describe-stop.js';
import { callGuestFunction } from '../call/guest-call.js';
import { type GuestImage, loadImage } from '../call/load-image.js';
import { writeOut } from '../write-out.js';

const MAX_INSNS = 10_000_000;

interface DemoCall {
  readonly symbol: string;
  /** How the call reads in C. */
  readonly shown: string;
  readonly args: readonly CallArgument[];
  /** How the return value and any buffer read. */
  readonly render: (rax: bigint, memory: readonly (Uint8Array | undefined)[]) => string;
}

const int = (value: bigint): CallArgument => ({ kind: 'int', value: BigInt.asUintN(64, value) });
const SORT_INPUT = [42n, -7n, 19n, 0n, 3n, -128n, 77n, 5n];

const CALLS: readonly DemoCall[] = [
  {
    symbol: 'sort_quick_i64',
    shown: `sort_quick_i64({${SORT_INPUT.join(', ')}}, ${SORT_INPUT.length})`,
    args: [{ kind: 'bytes', data: i64Array(SORT_INPUT) }, int(BigInt(SORT_INPUT.length))],
    render: (rax, memory) => `${rax} out of order; array now {${readI64Array(memory[0]!).join(', ')}}`,
  },
  {
    symbol: 'hash_crc32',
    shown: 'hash_crc32("123456789", 9)',
    args: [{ kind: 'str', text: '123456789' }, int(9n)],
    render: (rax) => `${hex64(rax)}${rax === 0xcbf43926n ? ' (the CRC-32 check value)' : ''}`,
  },
  {
    symbol: 'div_s64',
    shown: 'div_s64(-100, 7)',
    args: [int(-100n), int(7n)],
    render: (rax) => `${BigInt.asIntN(64, rax)}`,
  },
  {
    symbol: 'str_length',
    shown: 'str_length(NULL)',
    args: [int(0n)],
    render: (rax) => `${rax}`,
  },
];

/** The function whose first instructions the demo disassembles. */
const SHOWN_FUNCTION = 'div_s64';

/**
 * Registers `int3 demo` (provisional): runs a few functions of the sample image and shows results,
 * instruction counts, a disassembly and the traps seen, on one screen.
 */
export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description('run a few functions of the sample image on the emulator and show what happened')
    .option('--image <elf>', 'ET_EXEC image to use instead of the @int3/cpu sample image')
    .addHelpText(
      'after',
      '\nExample:\n  $ int3 demo\n  sort_quick_i64({42, -7, ...}, 8) = 0 out of order; array now {-128, -7, ...}  (412 instructions)',
    )
    .action((options: { image?: string }, command: Command) => {
      writeOut(command, runDemo(loadImage(options.image, 'demo')));
    });
}

function runDemo(image: GuestImage): string {
  const lines = [
    'int3 demo: gcc -O2 kernel-model C running on the int3 x86-64 emulator, ring 0',
    `image: ${image.path} (${image.symbols.size} symbols)`,
    '',
  ];
  const traps: string[] = [];
  for (const demo of CALLS) {
    const symbol = image.symbols.lookup(demo.symbol);
    if (symbol === undefined) {
      lines.push(`  ${demo.shown}: not in this image, skipped`);
      continue;
    }
    const call = callGuestFunction(image, symbol.address, demo.args, MAX_INSNS);
    const count = `(${call.instructions.toLocaleString('en-US')} instructions)`;
    if (call.outcome.kind === 'returned') {
      lines.push(`  ${demo.shown} = ${demo.render(call.outcome.value, call.memory)}  ${count}`);
    } else {
      lines.push(
        `  ${demo.shown} -> ${describeStop(call.outcome.result, call.traps, image.symbols, call.space, MAX_INSNS)}  ${count}`,
      );
    }
    for (const t of call.traps) traps.push(`${t.name} at ${image.symbols.format(t.rip)} during ${demo.symbol}`);
  }
  const shown = image.symbols.lookup(SHOWN_FUNCTION);
  if (shown) {
    lines.push('', `${SHOWN_FUNCTION}, first instructions (iced-x86, AT&T syntax):`);
    const size = Math.min(shown.size || 48, 48);
    const bytes = readMapped(image, shown.address, size);
    for (const insn of disassemble(bytes, shown.address, 8)) {
      lines.push(`  ${insn.address.toString(16)}:  ${insn.bytes.padEnd(30)} ${insn.text}`);
    }
  }
  lines.push('', `traps seen: ${traps.length === 0 ? 'none' : traps.join('; ')}`);
  if (traps.length > 0) lines.push('(each fault came back as a value: the host kept running)');
  return `${lines.join('\n')}\n`;
}

/** `size` bytes of the image at `address`, read from its file through the segment that holds them. */
function readMapped(image: GuestImage, address: bigint, size: number): Uint8Array {
  for (const s of image.file.segments) {
    if (address >= s.vaddr && address + BigInt(size) <= s.vaddr + BigInt(s.fileSize)) {
      const at = s.offset + Number(address - s.vaddr);
      return image.file.bytes.subarray(at, at + size);
    }
  }
  return new Uint8Array();
}

function i64Array(values: readonly bigint[]): Uint8Array {
  const bytes = new Uint8Array(8 * values.length);
  const view = new DataView(bytes.buffer);
  values.forEach((v, i) => {
    view.setBigInt64(8 * i, v, true);
  });
  return bytes;
}

function readI64Array(bytes: Uint8Array): bigint[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Array.from({ length: bytes.length / 8 }, (_, i) => view.getBigInt64(8 * i, true));
}
