import type { PluginGuard } from './plugin-guard.js';

/**
 * Where plugin code runs at this moment: set before a guarded handler or a tracer's `start`, `stop`
 * or `report` is called and cleared when it returns. A watchdog that had to terminate a call that
 * never returned reads it to name the plugin, the tracer and the handler (nothing clears it then).
 */
export interface PluginCallSite {
  guard: PluginGuard | undefined;
  tracer: string | undefined;
  /** E.g. `the pre-handler of its kprobe at do_sys_open`, `start()`. */
  what: string | undefined;
}
