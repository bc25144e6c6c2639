import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEphemeralPostgres } from '../src/db/embedded.js';
import { migrate } from '../src/db/migrate.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A migrated embedded database's data directory (a tarball), for `createTestDatabase` to copy. */
    migratedDatabase: string | undefined;
  }
}

/**
 * Once per run, on the embedded database: a database migrated to the current schema, written out
 * for every test app to start from. Starting PGlite from a copy costs a third of running its
 * initdb, and the migrations are then already applied (each app still runs `migrate`, which finds
 * nothing to do): some three seconds of CPU saved per test app, a hundred and fifty of them. A
 * migration that fails fails here, before any test. On PostgreSQL (DATABASE_URL) nothing is made:
 * each test makes its own database.
 */
export default async function setup(project: TestProject) {
  if (process.env.DATABASE_URL) {
    project.provide('migratedDatabase', undefined);
    return;
  }
  const embedded = await startEphemeralPostgres();
  const path = join(tmpdir(), `merma-test-migrated-${process.pid}.tar`);
  try {
    await migrate(embedded.url);
    writeFileSync(path, Buffer.from(await (await embedded.dump()).arrayBuffer()));
  } finally {
    await embedded.close();
  }
  project.provide('migratedDatabase', path);
  return () => rmSync(path, { force: true });
}
