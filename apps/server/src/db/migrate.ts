import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Logger, runMigrations as runWorkerMigrations } from 'graphile-worker';
import pg from 'pg';

/**
 * Applies the committed Prisma Migrate migrations (prisma/migrations/<name>/migration.sql) in name
 * order, recording each in `_prisma_migrations` exactly as `prisma migrate deploy` does (same table,
 * sha256 checksum of the file), so that either tool sees the other's work. The Prisma CLI cannot
 * migrate on machines without its native schema engine, which is why the server does it at boot.
 *
 * A session-level advisory lock makes concurrent boots of several replicas take turns: the first
 * applies, the others find nothing pending. Each migration runs in its own transaction, which
 * re-checks under a lock on _prisma_migrations that it is still pending.
 */
export type MigrationResult = { applied: string[]; total: number };

const quietLogger = new Logger(() => () => {});
const LOCK_ID = 72_707_369; // any constant shared by every replica: "merma" migrations

export function migrationsDir(): string {
  // src/db/ in development, dist/ when built: prisma/ sits at the package root in both layouts.
  const here = dirname(fileURLToPath(import.meta.url));
  for (const candidate of [join(here, '../../prisma/migrations'), join(here, '../prisma/migrations')]) {
    try {
      readdirSync(candidate);
      return candidate;
    } catch {}
  }
  throw new Error('prisma/migrations not found next to the server build');
}

export function readMigrations(dir = migrationsDir()): { name: string; sql: string; checksum: string }[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

export async function migrate(databaseUrl: string, dir?: string): Promise<MigrationResult> {
  const migrations = readMigrations(dir);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_ID]);
    try {
      await client.query(CREATE_TABLE);
      const { rows } = await client.query<{ migration_name: string; checksum: string }>(
        'SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
      );
      const done = new Map(rows.map((r) => [r.migration_name, r.checksum]));
      const applied: string[] = [];
      for (const m of migrations) {
        const seen = done.get(m.name);
        if (seen !== undefined) {
          if (seen !== m.checksum) {
            throw new Error(`Migration ${m.name} was modified after it was applied (checksum differs)`);
          }
          continue;
        }
        const id = randomUUID();
        await client.query('BEGIN');
        try {
          // Checked again under a table lock inside the transaction: the advisory lock does not
          // exclude anything on the embedded PGlite, where every connection shares one session.
          await client.query('LOCK TABLE "_prisma_migrations" IN SHARE ROW EXCLUSIVE MODE');
          const again = await client.query(
            'SELECT 1 FROM "_prisma_migrations" WHERE migration_name = $1 AND finished_at IS NOT NULL AND rolled_back_at IS NULL',
            [m.name],
          );
          if (again.rowCount) {
            await client.query('COMMIT');
            continue;
          }
          await client.query('INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at) VALUES ($1, $2, $3, now())', [
            id,
            m.checksum,
            m.name,
          ]);
          await client.query(m.sql);
          await client.query('UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1', [id]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK');
          throw new Error(`Migration ${m.name} failed: ${(err as Error).message}`, { cause: err });
        }
        applied.push(m.name);
      }
      // The job queue's own schema (graphile_worker), versioned and migrated by graphile-worker
      // itself; the outbox dispatch and the endpoints enqueue into it.
      await runWorkerMigrations({ connectionString: databaseUrl, logger: quietLogger });
      return { applied, total: migrations.length };
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [LOCK_ID]).catch(() => {});
    }
  } finally {
    await client.end();
  }
}
