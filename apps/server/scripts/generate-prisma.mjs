// Generates the Prisma client (TypeScript, `prisma-client` generator) after install.
// `prisma generate` needs no schema engine, but the CLI still looks for one first and would try to
// download it; pointing PRISMA_SCHEMA_ENGINE_BINARY at any executable keeps generation offline.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let prismaCli;
try {
  prismaCli = require.resolve('prisma/build/index.js');
} catch {
  console.warn('[merma] prisma CLI not installed (production install?): skipping client generation');
  process.exit(0);
}
const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: '1', CHECKPOINT_DISABLE: '1' };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY) {
  env.PRISMA_SCHEMA_ENGINE_BINARY = existsSync('/bin/true') ? '/bin/true' : process.execPath;
}
execFileSync(process.execPath, [prismaCli, 'generate'], { stdio: 'inherit', env });
