/**
 * Violations the architecture had when this test was written, being removed by issue #15's redesign.
 * The test fails on any violation not listed here, and on an entry that no longer occurs — so when you
 * fix one, delete its line: the list only shrinks. Each entry is a violation without its line number
 * (`file: rule: message`, as the failure prints it).
 */
export const KNOWN_VIOLATIONS: readonly string[] = [
  "packages/kprobes/src/core/kprobes-state.ts: core-imports-arch: kprobes' core imports its arch (packages/kprobes/src/arch/x86/kprobe-booster.ts); core knows the arch only through its interface of arch hooks",
  "packages/kprobes/src/core/kprobes.ts: core-imports-arch: kprobes' core imports its arch (packages/kprobes/src/arch/x86/x86-kprobes.ts); core knows the arch only through its interface of arch hooks",
  "packages/kprobes/src/core/kprobes.ts: core-imports-arch: kprobes' core imports its arch (packages/kprobes/src/arch/x86/x86-optprobes.ts); core knows the arch only through its interface of arch hooks",
  "packages/kprobes/src/core/optimize-refusals.spec.ts: core-imports-arch: kprobes' core imports its arch (packages/kprobes/src/arch/x86/x86-optprobes.ts); core knows the arch only through its interface of arch hooks",
  "packages/kprobes/src/core/optimize-refusals.ts: core-imports-arch: kprobes' core imports its arch (packages/kprobes/src/arch/x86/x86-optprobes.ts); core knows the arch only through its interface of arch hooks",
  "packages/kprobes/src/core/optimizer-state.ts: core-imports-arch: kprobes' core imports its arch (packages/kprobes/src/arch/x86/x86-optprobes.ts); core knows the arch only through its interface of arch hooks",
  "packages/kprobes/src/core/optimizer.ts: core-imports-arch: kprobes' core imports its arch (packages/kprobes/src/arch/x86/x86-optprobes.ts); core knows the arch only through its interface of arch hooks",
  'packages/kprobes/src/core/arch.ts: cycle: an import cycle of 2 files in @int3/kprobes: src/core/arch.ts, src/core/probe-site.ts',
  'packages/kprobes/src/arch/x86/kprobe-booster.ts: cycle: an import cycle of 15 files in @int3/kprobes: src/arch/x86/kprobe-booster.ts, src/arch/x86/optimized-callback.ts, src/arch/x86/resume-execution.ts, src/arch/x86/x86-kprobes.ts, src/arch/x86/x86-optprobes.ts, src/core/debugfs.ts, src/core/jprobes.ts, src/core/kprobes-state.ts, src/core/kprobes.ts, src/core/kretprobes.ts, src/core/optimize-policy.ts, src/core/optimize-refusals.ts, src/core/optimizer-state.ts, src/core/optimizer.ts, src/module-api/guest-kprobes.ts',
];
