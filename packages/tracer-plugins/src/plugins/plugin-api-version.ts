/**
 * The plugin API this int3 provides: the contract of `TracerPlugin`, `Tracer`, `TracerContext` and
 * `TracerTokens`. A plugin's manifest states the version it was built for (`apiVersion`); it loads when
 * that version is one this int3 still provides, from {@link OLDEST_PLUGIN_API_VERSION} to this one.
 * The number goes up when the contract changes in a way an existing plugin would notice.
 *
 * Version 2: `TracerContext` is a view (`regs`, `memory`, `tasks`, `symbols`, `clock`, `nrCpus`, a
 * `TracerKprobes`, `buffer`, `args`); version 1's `machine` and `traceFs`, and the `Machine` and
 * `TraceFs` tokens, are gone, so a version-1 plugin is refused rather than failing at its first read.
 *
 * @see include/linux/module.h MODULE_INFO(vermagic) — a module states the kernel it was built for
 */
export const PLUGIN_API_VERSION = 2;

/** The oldest plugin API version this int3 still loads. */
export const OLDEST_PLUGIN_API_VERSION = 2;
