import { readFileSync } from 'node:fs';
import { defineConfig } from 'tsup';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

// ESM + CJS + types, with no runtime dependencies: ky (the HTTP client, ESM-only), the private
// @merma/schema (its constants only) and @merma/signing are bundled in, so `require()` works too.
// ky is imported dynamically on the first request (core/http.ts): in the ESM build it is a chunk
// of its own that a bundle using only verifyWebhook leaves out (its module-level feature detection
// cannot be tree-shaken), and in the CommonJS build it is inlined. The types are plain TypeScript
// generated from the schemas (src/generated), so the .d.ts files import nothing and customers need
// neither zod nor ky to type-check.
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: { resolve: ['@merma/signing'] },
  clean: true,
  sourcemap: true,
  target: 'es2022',
  platform: 'neutral',
  noExternal: ['@merma/schema', '@merma/signing', 'ky'],
  splitting: true,
  define: { __MERMA_SDK_VERSION__: JSON.stringify(version) },
  esbuildOptions(options, { format }) {
    options.conditions = ['@merma/source'];
    // The CommonJS chunks go through tsup's ESM→CJS rewrite (sucrase), which turns every class
    // with fields into `_class6 = class extends …`: console.log would print the error classes as
    // `_class6`. esbuild's keepNames sets each class's name explicitly, which the rewrite keeps
    // (test/dual-build.test.ts checks the built files). ESM needs none of it, and stays smaller.
    options.keepNames = format === 'cjs';
  },
});
