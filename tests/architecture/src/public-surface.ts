import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

/** The classes whose public surface issue #15 bounds, and the bound. */
export const BOUNDED_CLASSES = [
  { file: 'packages/kernel/src/machine/machine.ts', name: 'Machine' },
  { file: 'packages/kprobes/src/kprobes.ts', name: 'Kprobes' },
] as const;
export const MAX_PUBLIC_MEMBERS = 20;

/**
 * The public members of class `name` in `source`: fields (constructor parameter properties included),
 * getters and setters (one member per name), methods and statics, without `private`/`protected` ones,
 * `#private` ones, or the constructor. Statics are prefixed `static `.
 */
export function publicMembers(source: string, name: string): string[] {
  const file = ts.createSourceFile('x.ts', source, ts.ScriptTarget.Latest, true);
  const cls = file.statements.find((s): s is ts.ClassDeclaration => ts.isClassDeclaration(s) && s.name?.text === name);
  if (cls === undefined) throw new Error(`no class ${name}`);
  const hidden = (n: ts.Node) =>
    ts.canHaveModifiers(n) &&
    (ts.getModifiers(n) ?? []).some(
      (m) => m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword,
    );
  const isStatic = (n: ts.Node) =>
    ts.canHaveModifiers(n) && (ts.getModifiers(n) ?? []).some((m) => m.kind === ts.SyntaxKind.StaticKeyword);
  const names = new Set<string>();
  for (const member of cls.members) {
    if (ts.isConstructorDeclaration(member)) {
      if (hidden(member)) continue;
      for (const p of member.parameters) {
        const property = (ts.getModifiers(p) ?? []).some(
          (m) => m.kind === ts.SyntaxKind.ReadonlyKeyword || m.kind === ts.SyntaxKind.PublicKeyword,
        );
        if (property && !hidden(p) && ts.isIdentifier(p.name)) names.add(p.name.text);
      }
      continue;
    }
    if (hidden(member) || member.name === undefined || ts.isPrivateIdentifier(member.name)) continue;
    const text = member.name.getText(file);
    names.add(isStatic(member) ? `static ${text}` : text);
  }
  return [...names].sort();
}

/** {@link publicMembers} of each bounded class, read from the repository at `root`. */
export function boundedSurfaces(root: string): { readonly name: string; readonly members: string[] }[] {
  return BOUNDED_CLASSES.map(({ file, name }) => ({
    name,
    members: publicMembers(readFileSync(join(root, file), 'utf8'), name),
  }));
}
