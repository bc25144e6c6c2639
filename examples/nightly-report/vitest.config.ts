import { defineConfig } from 'vitest/config';

// As in packages/sdk: the server started by the tests (apps/server/test/helpers.ts) and
// @merma/schema are read from their TypeScript sources; @merma/sdk is used as built (dist), as an
// application installing it from npm would.
export default defineConfig({
  resolve: { conditions: ['@merma/source'] },
  ssr: { resolve: { conditions: ['@merma/source'] } },
  test: { include: ['test/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 60_000 },
});
