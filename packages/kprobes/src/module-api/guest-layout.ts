/**
 * `struct kprobe` in guest memory: byte offsets of its members, as `include/linux/kprobes.h` of the
 * image package lays them out (and checks with `_Static_assert`).
 *
 * @see include/linux/kprobes.h struct kprobe
 */
export const KprobeLayout = {
  symbolName: 0,
  offset: 8,
  addr: 16,
  preHandler: 24,
  postHandler: 32,
  faultHandler: 40,
  breakHandler: 48,
  nmissed: 56,
  flags: 64,
  reserved: 72,
  SIZE: 104,
} as const;

/**
 * `struct jprobe` in guest memory: the kprobe, then the entry's address.
 * @see include/linux/kprobes.h struct jprobe
 */
export const JprobeLayout = { kp: 0, entry: 104, SIZE: 112 } as const;

/**
 * `struct kretprobe` in guest memory.
 * @see include/linux/kprobes.h struct kretprobe
 */
export const KretprobeLayout = {
  kp: 0,
  handler: 104,
  entryHandler: 112,
  maxactive: 120,
  nmissed: 124,
  dataSize: 128,
  SIZE: 136,
} as const;

/**
 * `struct kretprobe_instance` in guest memory, which the host allocates: `data` is the flexible
 * array of `rp->data_size` bytes.
 * @see include/linux/kprobes.h struct kretprobe_instance
 */
export const KretprobeInstanceLayout = { rp: 0, retAddr: 8, task: 16, data: 24 } as const;

/** `KSYM_NAME_LEN`: the longest `symbol_name` read from a guest struct. */
export const KSYM_NAME_LEN = 512;

/**
 * Bytes left untouched below the trapping stack pointer before the `struct pt_regs` a guest handler
 * receives: room for whatever the interrupted code keeps just below its stack pointer.
 */
export const HANDLER_STACK_GAP = 512n;

/** Offset of `current_task` in `struct pcpu_hot` (image ABI.md §2): a handler's `ri->task`. */
export const PCPU_CURRENT_TASK = 8n;
