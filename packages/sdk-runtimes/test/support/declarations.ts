import ts from 'typescript';

/**
 * The value exports a declaration file promises (what `import { X }` may use at run time), read
 * with the TypeScript compiler as a customer's compiler reads it: every export of the module, with
 * aliases followed to their target, kept when the target has a value meaning and no link of the
 * alias chain is type-only (`export type { X }` of a class exports no value).
 */
export function declaredValueExports(file: string): { values: string[]; unresolved: string[] } {
  const program = ts.createProgram([file], {
    noEmit: true,
    strict: true,
    skipLibCheck: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    types: [],
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  if (!source) throw new Error(`TypeScript could not read ${file}`);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  if (!moduleSymbol) throw new Error(`${file} is not a module (it declares no exports)`);
  const values: string[] = [];
  // Re-exports whose target TypeScript cannot find (e.g. from a package the tarball does not
  // declare): neither value nor type can be told, and a customer's compiler fails on them.
  const unresolved: string[] = [];
  for (const symbol of checker.getExportsOfModule(moduleSymbol)) {
    let target = symbol;
    let typeOnly = false;
    while (target.flags & ts.SymbolFlags.Alias) {
      if (target.declarations?.some((d) => ts.isTypeOnlyImportOrExportDeclaration(d))) typeOnly = true;
      const next = checker.getImmediateAliasedSymbol(target);
      if (!next || next === target) break;
      target = next;
    }
    if (target.flags & ts.SymbolFlags.Alias) target = checker.getAliasedSymbol(target);
    if (!target.declarations?.length) unresolved.push(symbol.getName());
    else if (!typeOnly && target.flags & ts.SymbolFlags.Value) values.push(symbol.getName());
  }
  return { values: values.sort(), unresolved: unresolved.sort() };
}

/** Module specifiers a file imports (import/export from, import(), require(), /// <reference types>). */
export function importedSpecifiers(text: string): string[] {
  const info = ts.preProcessFile(text, true, true);
  return [...info.importedFiles, ...info.typeReferenceDirectives].map((f) => f.fileName);
}

/** `zod/v4` → `zod`, `@scope/pkg/sub` → `@scope/pkg`; relative paths and `node:` builtins → undefined. */
export function packageName(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}
