import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { deadline } from '@merma/testing';
import { defineConfig } from 'vitest/config';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

export default defineConfig({
  define: { __MERMA_SDK_VERSION__: JSON.stringify(version) },
  // @merma/test-server (the built server on a fresh database, for test/integration.test.ts) is
  // reached by path, not as a dev dependency: it depends on @merma/server, which depends on this
  // package, and that cycle would stop turbo. turbo.json builds the server before this package's tests.
  resolve: {
    conditions: ['@merma/source'],
    alias: { '@merma/test-server': fileURLToPath(new URL('../test-server/src/index.ts', import.meta.url)) },
  },
  ssr: { resolve: { conditions: ['@merma/source'] } },
  test: {
    // Tests a failed beforeAll kept from running are named as such (@merma/testing), not only "skipped".
    reporters: ['default', '@merma/testing/setup-failures'],
    include: ['test/**/*.test.ts'],
    testTimeout: deadline(60_000),
    hookTimeout: deadline(60_000),
  },
});
