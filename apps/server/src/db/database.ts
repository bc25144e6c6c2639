import pg from 'pg';
import type { Config } from '../config.js';
import type { Log } from '../context.js';
import type { SecretBox } from '../secrets/cipher.js';
import { loadSecretBox } from '../secrets/keys.js';
import { sealClearSecrets } from '../secrets/stored.js';
import { createPrisma, type Db } from './client.js';
import type { EmbeddedDatabase } from './embedded.js';
import { migrate } from './migrate.js';
import { waitForDatabase } from './wait.js';

export type Database = {
  url: string;
  prisma: Db;
  embedded: boolean;
  /** The keys of secrets at rest (MERMA_ENCRYPTION_KEY, or the development key under DATA_DIR). */
  secrets: SecretBox;
  close(): Promise<void>;
};

/**
 * Opens the configured database: DATABASE_URL (waiting up to DATABASE_STARTUP_TIMEOUT_SECONDS for it
 * to accept connections), or the embedded PGlite under DATA_DIR. Applies
 * pending migrations when `migrate` is true, then seals the webhook secrets still stored in clear
 * (secrets/stored.ts, which says why this is not a SQL migration).
 */
/**
 * The embedded database's module, imported only when DATABASE_URL is unset: PGlite (WebAssembly,
 * ~30 MB) is a development dependency, which the production image (`pnpm deploy --prod`) does not
 * install, so a server with DATABASE_URL never loads it. Without it, the refusal says what to set.
 */
async function loadEmbedded(): Promise<typeof import('./embedded.js')> {
  try {
    return await import('./embedded.js');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND' || !String((err as Error).message).includes('@electric-sql/'))
      throw err;
    throw new Error(
      'DATABASE_URL is not set and this installation has no embedded database (PGlite is installed for development only, not in the production image): set DATABASE_URL=postgresql://user:password@host:5432/database',
      { cause: err },
    );
  }
}

export async function openDatabase(
  config: Pick<Config, 'databaseUrl' | 'databaseStartupTimeoutMs' | 'dataDir' | 'databasePoolSize' | 'env' | 'encryptionKeys'>,
  options: { migrate: boolean; log?: Pick<Log, 'info' | 'warn'> },
): Promise<Database> {
  // Before the database: a bad key file stops the boot before anything is opened.
  const secrets = loadSecretBox(config, options.log);
  let embedded: EmbeddedDatabase | undefined;
  let url = config.databaseUrl;
  // A database started together with this process may not accept connections yet (db/wait.ts).
  if (url) await waitForDatabase(url, { timeoutMs: config.databaseStartupTimeoutMs, log: options.log });
  else {
    embedded = await (await loadEmbedded()).openEmbeddedPostgres(config.dataDir);
    url = embedded.url;
    options.log?.info({ dataDir: config.dataDir, owner: embedded.owner }, 'embedded PostgreSQL (PGlite)');
  }
  try {
    if (options.migrate) {
      const result = await migrate(url);
      options.log?.info(result, 'migrations checked');
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const sealed = await sealClearSecrets(client, secrets);
        options.log?.info({ ...sealed, keyId: secrets.currentKeyId }, 'webhook secrets at rest checked');
      } finally {
        await client.end();
      }
    }
    const prisma = createPrisma(url, embedded ? Math.min(config.databasePoolSize, 8) : config.databasePoolSize);
    return {
      url,
      prisma,
      embedded: !!embedded,
      secrets,
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
