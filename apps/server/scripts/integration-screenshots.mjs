#!/usr/bin/env node
/**
 * The screenshots of docs/integrations.md: the Connect Square form, a Square integration with its
 * notification URL and checklist, the Connect Odoo form and Odoo's URL shown once, 1280 px wide,
 * in English, written to docs/screenshots/.
 *
 * They are taken by the screenshot case of test/integrations-browser.test.ts (the same served
 * dashboard, chromium and fixtures as the browser test), which runs only when
 * INTEGRATION_SCREENSHOTS names a directory, so `pnpm test` never writes into docs/. Needs the
 * built dashboard (`pnpm --filter @merma/dashboard build`) and chromium (CHROMIUM_PATH, else
 * /usr/bin/chromium).
 *
 *   node apps/server/scripts/integration-screenshots.mjs [output directory]
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const server = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const root = resolve(server, '../..');
const out = resolve(process.argv[2] ?? join(root, 'docs/screenshots'));
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

if (!existsSync(join(root, 'apps/dashboard/dist/index.html'))) {
  console.error('Build the dashboard first: pnpm --filter @merma/dashboard build');
  process.exit(1);
}
if (!existsSync(chromium)) {
  console.error(`No chromium at ${chromium} (apt-get install chromium, or set CHROMIUM_PATH)`);
  process.exit(1);
}

const run = spawnSync(
  join(server, 'node_modules/.bin/vitest'),
  ['run', 'test/integrations-browser.test.ts', '--maxWorkers=1', '-t', 'screenshots for the documentation'],
  { cwd: server, stdio: 'inherit', env: { ...process.env, INTEGRATION_SCREENSHOTS: out } },
);
if (run.status === 0) console.log(`Screenshots written to ${out}`);
process.exit(run.status ?? 1);
