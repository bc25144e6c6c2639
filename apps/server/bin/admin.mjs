#!/usr/bin/env node
// `pnpm admin <command>` at the repository root. pnpm runs a package binary when no script has the
// name, and — unlike a script — prints nothing of its own, so `pnpm admin quickstart | jq` reads
// merma-admin's JSON alone. Runs merma-admin from its sources (no build needed), in apps/server,
// where the server runs too: the same relative DATA_DIR, so the same embedded database. The
// published command is `merma-admin` (dist/admin.js).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const server = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsx = createRequire(join(server, 'package.json')).resolve('tsx');
const run = spawnSync(
  process.execPath,
  ['--import', tsx, '--conditions=@merma/source', join(server, 'src/admin.ts'), ...process.argv.slice(2)],
  { cwd: server, stdio: 'inherit' },
);
process.exit(run.status ?? 1);
