import { Option } from 'commander';

/** commander's argument parser of a repeatable option: every value, in order. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/**
 * The option definitions several commands share, defined once: `--cpus`, `--image`, `-e` and `--run`.
 * Each call returns a new `Option` (commander keeps a reference per command).
 */
export const CommonOptions = Object.freeze({
  /** `--cpus <n>`: CPUs to boot, default 2. */
  cpus: () => new Option('--cpus <n>', 'CPUs to boot (1 to 64)').default('2'),
  /** `--image <elf>`: the kernel image (or a freestanding ELF), `what` saying which one is expected. */
  image: (
    what = 'kernel image, or a freestanding x86-64 ELF to link beside the sample kernel (default: the sample kernel)',
  ) => new Option('--image <elf>', what),
  /** `-e, --event <definition>` (repeatable). */
  event: (what = 'a kprobe_events line, e.g. "p:open do_sys_open dfd=%di" (repeatable)') =>
    new Option('-e, --event <definition>', what).argParser(collect),
  /** `--insmod <'file.ko name=value…'>` (repeatable): modules loaded in order before the workloads. */
  insmod: () =>
    new Option(
      '--insmod <module>',
      "load a kernel module before the workloads: 'file.ko name=value…' (repeatable; see int3 module build)",
    ).argParser(collect),
  /** `--run <workload>` (repeatable). */
  run: (what = "a workload and its arguments, e.g. 'cat /etc/motd' (repeatable)") =>
    new Option('--run <workload>', what).argParser(collect),
});
