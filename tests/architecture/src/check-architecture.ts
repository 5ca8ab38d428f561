import { type ImportEdge, importsOf, sourceFiles } from './import-graph.js';
import { LAYERS, layerOf } from './layers.js';
import { cyclicComponents } from './strongly-connected.js';
import { packageOfPath, splitSpecifier, type WorkspacePackage, workspacePackages } from './workspace.js';

/** What an architecture rule found wrong, at a file (and line). */
export interface Violation {
  readonly rule: 'direction' | 'dependency' | 'cycle' | 'core-imports-arch' | 'internals';
  /** The file (or `package.json`) it is in, relative to the repository root. */
  readonly file: string;
  readonly line?: number;
  readonly message: string;
}

/** A violation as one line: `file:line: rule: message`. */
export function formatViolation(v: Violation): string {
  return `${v.file}${v.line === undefined ? '' : `:${v.line}`}: ${v.rule}: ${v.message}`;
}

/** A violation as one line without its line number (which moves with every edit above it). */
export function violationKey(v: Violation): string {
  return `${v.file}: ${v.rule}: ${v.message}`;
}

const KPROBES_CORE = 'packages/kprobes/src/core/';
const KPROBES_ARCH = 'packages/kprobes/src/arch/';
const direction = LAYERS.slice().reverse().join(' → ');

/** The rank of a workspace package in the layers, when it is one of `@int3/<layer>`. */
function rank(p: WorkspacePackage): number | undefined {
  return p.name.startsWith('@int3/') ? layerOf(p.name.slice('@int3/'.length)) : undefined;
}

/**
 * Checks the repository under `root` against the architecture the README states:
 * - **direction**: a package of the layers (`cli → tracer-plugins → kprobes → kernel → cpu`) imports
 *   only packages to its right, type-only imports included, in its sources, tests and benches alike;
 * - **dependency**: no `package.json` of a layer declares a dependency against the direction;
 * - **cycle**: no import cycle among a package's `src/` files (type-only imports included);
 * - **core-imports-arch**: kprobes' `core/` never imports its `arch/` (Linux's kernel/kprobes.c knows
 *   the arch only through its `arch_*` hooks);
 * - **internals**: no file imports another workspace package except through a subpath that package
 *   exports (`@int3/cpu`, `@int3/cpu/testing`) — no `@int3/x/src/…`, no `../../../x/test/…`.
 */
export function checkArchitecture(root: string): Violation[] {
  const packages = workspacePackages(root);
  const byName = new Map(packages.map((p) => [p.name, p]));
  const out: Violation[] = [];
  for (const p of packages) {
    const own = rank(p);
    if (own !== undefined) {
      for (const d of p.declares) {
        const target = byName.get(d.name);
        const theirs = target && rank(target);
        if (theirs !== undefined && theirs >= own && d.name !== p.name) {
          out.push({
            rule: 'dependency',
            file: `${p.dir}/package.json`,
            message: `${p.name} declares ${d.name} in ${d.field}, against the direction ${direction}`,
          });
        }
      }
    }
    const files = sourceFiles(root, p.dir);
    const graph = new Map<string, string[]>();
    for (const file of files) {
      const edges = importsOf(root, file);
      if (file.startsWith(`${p.dir}/src/`)) graph.set(file, []);
      for (const e of edges) out.push(...checkEdge(e, p, own, packages, byName, graph));
    }
    for (const component of cyclicComponents(graph)) {
      out.push({
        rule: 'cycle',
        file: component[0]!,
        message: `an import cycle of ${component.length} file${component.length === 1 ? '' : 's'} in ${p.name}: ${component.map((f) => f.slice(p.dir.length + 1)).join(', ')}`,
      });
    }
  }
  return out;
}

function checkEdge(
  e: ImportEdge,
  p: WorkspacePackage,
  own: number | undefined,
  packages: readonly WorkspacePackage[],
  byName: ReadonlyMap<string, WorkspacePackage>,
  graph: Map<string, string[]>,
): Violation[] {
  const at = { file: e.from, line: e.line };
  if (e.to !== undefined) {
    const target = packageOfPath(packages, e.to);
    if (target && target !== p) {
      return [
        {
          rule: 'internals',
          ...at,
          message: `'${e.specifier}' reaches into ${target.name}'s files (${e.to}); import what it exports (${target.exports
            .filter((x) => x !== './package.json')
            .map((x) => (x === '.' ? target.name : `${target.name}/${x.slice(2)}`))
            .join(', ')})`,
        },
      ];
    }
    const out: Violation[] = [];
    if (e.from.startsWith(KPROBES_CORE) && e.to.startsWith(KPROBES_ARCH)) {
      out.push({
        rule: 'core-imports-arch',
        ...at,
        message: `kprobes' core imports its arch (${e.to}); core knows the arch only through its interface of arch hooks`,
      });
    }
    if (graph.has(e.from) && e.to.startsWith(`${p.dir}/src/`)) graph.get(e.from)!.push(e.to);
    return out;
  }
  const { name, subpath } = splitSpecifier(e.specifier);
  const target = byName.get(name);
  if (!target) return [];
  const out: Violation[] = [];
  const theirs = rank(target);
  if (own !== undefined && target !== p && (theirs === undefined || theirs >= own)) {
    out.push({
      rule: 'direction',
      ...at,
      message: `${p.name} imports ${e.specifier}, against the direction ${direction}`,
    });
  }
  if (!target.exports.includes(subpath)) {
    out.push({
      rule: 'internals',
      ...at,
      message: `'${e.specifier}' is not a subpath ${target.name} exports (${target.exports.join(', ')})`,
    });
  }
  return out;
}
