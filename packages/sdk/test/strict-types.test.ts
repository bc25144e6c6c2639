import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/** The diagnostics of compiling a tsconfig.json, one line each (file:line message). */
function compile(tsconfigPath: string): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(tsconfigPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (!config) throw new Error(`cannot read ${tsconfigPath}`);
  const program = ts.createProgram({ rootNames: config.fileNames, options: { ...config.options, noEmit: true } });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
    const file = d.file ? `${d.file.fileName.replace(/.*\/packages\/sdk\//, '')}:${(where?.line ?? 0) + 1} ` : '';
    return `${file}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

/**
 * Compiles test/types/strict-consumer.ts, which imports `@merma/sdk`: the package's built
 * dist/index.d.ts (as a customer gets it, @merma/signing's types bundled in), so run `pnpm build`
 * first (turbo builds the package before its tests).
 */
describe('the built public types under a strict consumer tsconfig', () => {
  it('accept `undefined` wherever the client does (exactOptionalPropertyTypes), and type APIError.code', () => {
    expect(compile(fileURLToPath(new URL('./types/tsconfig.json', import.meta.url)))).toEqual([]);
  });
});
