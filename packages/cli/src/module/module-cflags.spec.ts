import { describe, expect, it } from 'vitest';
import { moduleCflags } from './module-cflags.js';

describe(moduleCflags, () => {
  it('should define the module name and CONFIG_X86, and make the kernel-fatal warnings errors', () => {
    const flags = moduleCflags('mymod');
    expect(flags).toContain('-DKBUILD_MODNAME="mymod"');
    expect(flags).toContain('-DCONFIG_X86');
    expect(flags).toContain('-Werror=implicit-function-declaration');
  });
});
