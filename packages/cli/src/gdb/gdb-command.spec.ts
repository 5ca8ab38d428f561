import { dirname, join } from 'node:path';
import { SAMPLE_IMAGE_PATH } from '@int3/kernel';
import { describe, expect, it } from 'vitest';
import { gdbCommandLine } from './gdb-command.js';

const imageDir = dirname(SAMPLE_IMAGE_PATH);

describe(gdbCommandLine, () => {
  it("should load the sample kernel's debug twin and its sources", () => {
    expect(gdbCommandLine(undefined, '127.0.0.1', 1234, join(imageDir, '..'))).toBe(
      "gdb image/vmlinux.debug -ex 'directory image' -ex 'target remote :1234'",
    );
    expect(gdbCommandLine(undefined, '127.0.0.1', 1234, imageDir)).toBe(
      "gdb vmlinux.debug -ex 'directory .' -ex 'target remote :1234'",
    );
  });

  it('should name another image as given, and a host other than the default', () => {
    expect(gdbCommandLine('my kernel', '0.0.0.0', 9, '/')).toBe("gdb 'my kernel' -ex 'target remote 0.0.0.0:9'");
  });
});
