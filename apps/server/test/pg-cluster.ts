import { execFile, execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { deadline } from '@merma/testing';

/**
 * Throwaway PostgreSQL clusters of a test's own (initdb, pg_ctl, pg_basebackup on loopback), for
 * what one shared server cannot show: a streaming standby (read-replica.test.ts) and a primary lost
 * and its standby promoted (load/failover.test.ts). The server binaries are Debian's
 * (PG_BIN_DIR to use others); initdb and pg_ctl refuse to run as root, so as root the clusters'
 * commands run as the postgres user.
 */
export const PG_BIN = process.env.PG_BIN_DIR ?? '/usr/lib/postgresql/15/bin';
const asRoot = process.getuid?.() === 0;
const TOOLS = ['initdb', 'pg_ctl', 'pg_basebackup', 'postgres'];
const run = promisify(execFile);

/** Why this machine cannot run clusters of its own; undefined when it can. */
export function cannotRunClusters(): string | undefined {
  for (const tool of TOOLS)
    if (!existsSync(join(PG_BIN, tool))) return `no ${join(PG_BIN, tool)}: the PostgreSQL server binaries are needed (set PG_BIN_DIR)`;
  if (asRoot) {
    if (!existsSync('/usr/sbin/runuser')) return 'running as root without /usr/sbin/runuser to run the clusters as the postgres user';
    try {
      execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' });
    } catch {
      return 'running as root and there is no postgres user to run the clusters as';
    }
  }
  return undefined;
}

/** Runs one of the server's tools (`initdb`, `pg_ctl`…) as the user the clusters belong to. */
export async function asPostgres(tool: string, args: string[]) {
  const [file, argv] = asRoot ? ['/usr/sbin/runuser', ['-u', 'postgres', '--', join(PG_BIN, tool), ...args]] : [join(PG_BIN, tool), args];
  return run(file, argv, { timeout: deadline(120_000) });
}

/** Hands a directory made by the test to the clusters' user. */
export async function ownedByPostgres(dir: string) {
  if (asRoot) await run('chown', ['-R', 'postgres:postgres', dir]);
}

/** A loopback port nobody listens on. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Polls `probe` until it returns true (or throws after `ms`, stretched by the run's scale). */
export async function until(what: string, probe: () => Promise<boolean>, ms = 20_000) {
  const giveUpAt = Date.now() + deadline(ms);
  while (!(await probe())) {
    if (Date.now() > giveUpAt) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * A new cluster in `dataDir` that a standby can copy: trust from 127.0.0.1, replication
 * connections included, WAL for standbys, and `settings` appended to postgresql.conf.
 */
export async function initPrimary(dataDir: string, settings: string) {
  await asPostgres('initdb', ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
  writeFileSync(
    join(dataDir, 'pg_hba.conf'),
    'local all all trust\nhost all all 127.0.0.1/32 trust\nhost replication all 127.0.0.1/32 trust\n',
  );
  appendFileSync(join(dataDir, 'postgresql.conf'), `wal_level = replica\nmax_wal_senders = 4\n${settings}`);
}

/** Starts the cluster in `dataDir` on 127.0.0.1:`port`, its socket and log in `dir` (nothing shared with the machine's PostgreSQL). */
export async function startCluster(dataDir: string, port: number, dir: string, log: string) {
  await asPostgres('pg_ctl', [
    '-D',
    dataDir,
    '-l',
    join(dir, log),
    '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`,
    '-w',
    'start',
  ]);
}

/** A standby in `dataDir`: a base backup of the cluster at 127.0.0.1:`port`, with its recovery settings (-R). */
export async function baseBackup(dataDir: string, port: number) {
  // An immediate checkpoint: the default spreads it over minutes.
  await asPostgres('pg_basebackup', [
    '-R',
    '--checkpoint=fast',
    '-X',
    'stream',
    '-D',
    dataDir,
    '-h',
    '127.0.0.1',
    '-p',
    String(port),
    '-U',
    'postgres',
  ]);
}
