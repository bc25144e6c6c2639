import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEphemeralPostgres } from '../src/db/embedded.js';
import { migrate } from '../src/db/migrate.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A migrated embedded database's data directory (a tarball), for `createTestDatabase` to copy. */
    migratedDatabase: string | undefined;
    /** On PostgreSQL (DATABASE_URL): a migrated database's name, the template `createTestDatabase` copies. */
    migratedTemplate: string | undefined;
    /** A copy of the built dashboard made before any test ran, that the browser tests serve (test/browser.ts). */
    dashboardDist: string | undefined;
  }
}

/** Once per run, before any test: the built dashboard's copy and the migrated database. */
export default async function setup(project: TestProject) {
  const dropDashboard = snapshotDashboard(project);
  const dropDatabase = await migratedDatabase(project);
  return async () => {
    dropDashboard();
    await dropDatabase();
  };
}

/**
 * The built dashboard, copied once before any test runs, for the browser tests to serve: a build
 * while they run (onboarding.test.ts runs the README's `pnpm start`, which builds the dashboard,
 * and a build empties dist/ before writing it again) would otherwise answer a page they load with
 * a 404. Not built: nothing to copy (test/browser.ts says to build it).
 */
function snapshotDashboard(project: TestProject): () => void {
  const built = resolve(import.meta.dirname, '../../dashboard/dist');
  if (!existsSync(join(built, 'index.html'))) {
    project.provide('dashboardDist', undefined);
    return () => {};
  }
  const copy = mkdtempSync(join(tmpdir(), 'merma-test-dashboard-'));
  cpSync(built, copy, { recursive: true });
  project.provide('dashboardDist', copy);
  return () => rmSync(copy, { recursive: true, force: true });
}

/**
 * Once per run, on the embedded database: a database migrated to the current schema, written out
 * for every test app to start from. Starting PGlite from a copy costs a third of running its
 * initdb, and the migrations are then already applied (each app still runs `migrate`, which finds
 * nothing to do): some three seconds of CPU saved per test app, a hundred and fifty of them. A
 * migration that fails fails here, before any test. On PostgreSQL (DATABASE_URL) it is a migrated
 * database that each test app's database copies (`CREATE DATABASE … TEMPLATE`): some 0.35 s saved
 * per test app there.
 */
async function migratedDatabase(project: TestProject): Promise<() => Promise<void>> {
  const base = process.env.DATABASE_URL;
  if (base) {
    project.provide('migratedDatabase', undefined);
    const name = `merma_test_template_${process.pid}`;
    const url = new URL(base);
    url.pathname = `/${name}`;
    await adminQuery(base, `DROP DATABASE IF EXISTS ${name}`, `CREATE DATABASE ${name}`);
    await migrate(url.toString());
    project.provide('migratedTemplate', name);
    return () => adminQuery(base, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
  project.provide('migratedTemplate', undefined);
  const embedded = await startEphemeralPostgres();
  const path = join(tmpdir(), `merma-test-migrated-${process.pid}.tar`);
  try {
    await migrate(embedded.url);
    writeFileSync(path, Buffer.from(await (await embedded.dump()).arrayBuffer()));
  } finally {
    await embedded.close();
  }
  project.provide('migratedDatabase', path);
  return async () => rmSync(path, { force: true });
}

async function adminQuery(url: string, ...statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}
