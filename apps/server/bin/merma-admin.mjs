#!/usr/bin/env node
// The `merma-admin` command: the built CLI (dist/admin.js). The bin points here rather than at
// dist/ because package managers link bins at install time, before any build: a bin whose target
// does not exist yet makes every `pnpm install` of a fresh checkout warn that it could not be
// created. In a checkout that has not been built, it says so instead of failing with a module
// error (`pnpm admin` runs the CLI from its sources and needs no build).
import { existsSync } from 'node:fs';

const built = new URL('../dist/admin.js', import.meta.url);
if (!existsSync(built)) {
  process.stderr.write('merma-admin: not built yet: run `pnpm build` (or `pnpm admin …`, which runs from the sources)\n');
  process.exit(1);
}
await import(built.href);
