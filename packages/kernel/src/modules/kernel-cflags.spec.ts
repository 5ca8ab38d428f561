import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IMAGE_DIR } from '../sample-image.js';
import { KERNEL_CFLAGS } from './kernel-cflags.js';

describe('KERNEL_CFLAGS', () => {
  it('should be the flags of image/kernel-flags.sh, which build the kernel and its seed modules', () => {
    const script = readFileSync(join(IMAGE_DIR, 'kernel-flags.sh'), 'utf8');
    const array = script.match(/KERNEL_CFLAGS=\(([\s\S]*?)\n\)/)?.[1] ?? '';
    const flags = array.split(/\s+/).filter((f) => f.startsWith('-'));
    // The script's `-nostdinc -isystem "$($CC -print-file-name=include)"` is added by buildModule.
    expect(flags.filter((f) => !['-nostdinc', '-isystem'].includes(f) && !f.startsWith('-print-file-name'))).toEqual(
      KERNEL_CFLAGS,
    );
  });
});
