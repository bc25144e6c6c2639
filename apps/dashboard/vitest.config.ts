import { deadline } from '@merma/testing';
import { defineConfig, mergeConfig } from 'vitest/config';
import viteConfig from './vite.config.ts';

/**
 * The component tests (test/): the app's own pages, router and tRPC client in happy-dom (about
 * twice as fast as jsdom here, which matters on two cores), with the server's `/trpc` answered
 * from typed fixtures (test/support/api.ts).
 */
export default mergeConfig(
  viteConfig,
  defineConfig({
    test: {
      // Tests a failed beforeAll kept from running are named as such (@merma/testing), not only "skipped".
      reporters: ['default', '@merma/testing/setup-failures'],
      environment: 'happy-dom',
      include: ['test/**/*.test.{ts,tsx}'],
      setupFiles: ['./test/setup.ts'],
      // The browser's zone is neither UTC nor the establishment's (Madrid): a date taken in the
      // wrong zone shows. Its language is English (test/setup.ts).
      env: { TZ: 'America/New_York' },
      testTimeout: deadline(15_000),
      expect: { poll: { timeout: deadline(1_000) } },
    },
  }),
);
