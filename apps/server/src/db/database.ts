import type { Config } from '../config.js';
import { createPrisma, type Db } from './client.js';
import { type EmbeddedDatabase, openEmbeddedPostgres } from './embedded.js';
import { migrate } from './migrate.js';

export type Database = {
  url: string;
  prisma: Db;
  embedded: boolean;
  close(): Promise<void>;
};

type Log = { info(obj: object, msg?: string): void };

/**
 * Opens the configured database: DATABASE_URL, or the embedded PGlite under DATA_DIR. Applies
 * pending migrations when `migrate` is true.
 */
export async function openDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'databasePoolSize'>,
  options: { migrate: boolean; log?: Log },
): Promise<Database> {
  let embedded: EmbeddedDatabase | undefined;
  let url = config.databaseUrl;
  if (!url) {
    embedded = await openEmbeddedPostgres(config.dataDir);
    url = embedded.url;
    options.log?.info({ dataDir: config.dataDir, owner: embedded.owner }, 'embedded PostgreSQL (PGlite)');
  }
  try {
    if (options.migrate) {
      const result = await migrate(url);
      options.log?.info(result, 'migrations checked');
    }
    const prisma = createPrisma(url, embedded ? Math.min(config.databasePoolSize, 8) : config.databasePoolSize);
    return {
      url,
      prisma,
      embedded: !!embedded,
      async close() {
        await prisma.$disconnect();
        await embedded?.close();
      },
    };
  } catch (err) {
    await embedded?.close();
    throw err;
  }
}
