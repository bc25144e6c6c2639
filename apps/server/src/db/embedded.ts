import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { pidAlive } from '../running-server.js';

/**
 * The embedded default database: PGlite (PostgreSQL compiled to WebAssembly) served on a loopback
 * port by pglite-socket, so the server reaches it through the same `pg` driver adapter as a real
 * PostgreSQL.
 *
 * A PGlite data directory can be opened by one process only. The first process to open DATA_DIR
 * (normally the server) owns it and writes `embedded.json` with its port; a second process (the
 * `merma-admin` CLI while the server runs) finds that file, checks the owner is alive, and connects
 * to the owner's port instead of opening the files itself.
 */
export type EmbeddedDatabase = {
  url: string;
  /** true when this process started PGlite; false when it connected to another process's. */
  owner: boolean;
  close(): Promise<void>;
};

type Handle = { pid: number; port: number };

function portAccepts(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => done(port));
    });
  });
}

function readHandle(path: string): Handle | undefined {
  try {
    const h = JSON.parse(readFileSync(path, 'utf8')) as Handle;
    return typeof h.pid === 'number' && typeof h.port === 'number' ? h : undefined;
  } catch {
    return undefined;
  }
}

const urlFor = (port: number) => `postgresql://postgres@127.0.0.1:${port}/postgres?sslmode=disable`;

/** Extended-query protocol messages that the backend only completes at the following Sync. */
const EXTENDED = new Set(['P', 'B', 'D', 'E', 'C', 'H'].map((c) => c.charCodeAt(0)));
const SYNC = 'S'.charCodeAt(0);

type QueryQueue = {
  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number>;
};

/**
 * PGlite is a single backend session. pglite-socket 0.2 shares it among connections by queueing
 * protocol messages one at a time and keeping a connection exclusive while it is inside a
 * transaction; outside a transaction, the Parse/Bind/Execute/Sync messages of two connections can
 * interleave, so one connection's Bind lands on another's unnamed statement ("portal does not
 * exist", or worse, a query run with another query's parameters). This groups each connection's
 * extended-query messages up to its Sync and hands them to the queue as one unit, which PGlite
 * runs in one go. Tested by the concurrent-request tests, which fail without it.
 */
function groupExtendedQueries(server: PGLiteSocketServer): void {
  const queue = (server as unknown as { queryQueue: QueryQueue }).queryQueue;
  const enqueue = queue.enqueue.bind(queue);
  const pending = new Map<number, Uint8Array[]>();
  queue.enqueue = (handlerId, message, onData) => {
    const type = message[0] as number;
    if (EXTENDED.has(type)) {
      const list = pending.get(handlerId) ?? [];
      list.push(message);
      pending.set(handlerId, list);
      return Promise.resolve(0);
    }
    const held = pending.get(handlerId);
    if (type === SYNC && held) {
      pending.delete(handlerId);
      return enqueue(handlerId, Buffer.concat([...held, message]), onData);
    }
    return enqueue(handlerId, message, onData);
  };
}

async function serve(db: PGlite): Promise<{ port: number; server: PGLiteSocketServer }> {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const server = new PGLiteSocketServer({ db, port, host: '127.0.0.1', maxConnections: 64 });
    groupExtendedQueries(server);
    try {
      await server.start();
      return { port, server };
    } catch (err) {
      if (attempt >= 5) throw err;
    }
  }
}

/** An in-memory PGlite on a loopback port: for tests, gone when closed. */
export async function startEphemeralPostgres(options: { from?: Blob } = {}): Promise<EmbeddedDatabase & { dump(): Promise<Blob> }> {
  // `from`: a data directory written by `dump()` (a tarball), copied instead of running initdb:
  // a third of the CPU of a new database (the test suite starts one from a migrated copy per test app).
  const db = await PGlite.create(options.from ? { loadDataDir: options.from } : {});
  const { port, server } = await serve(db);
  return {
    url: urlFor(port),
    owner: true,
    dump: () => db.dumpDataDir('none'),
    async close() {
      await server.stop();
      await db.close();
    },
  };
}

/** Opens (or joins) the embedded PostgreSQL kept under `dataDir`. */
export async function openEmbeddedPostgres(dataDir: string): Promise<EmbeddedDatabase> {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const handlePath = join(dir, 'embedded.json');
  const lockPath = join(dir, 'embedded.lock');
  const deadline = Date.now() + 30_000;

  for (;;) {
    const handle = readHandle(handlePath);
    if (handle && handle.pid !== process.pid && pidAlive(handle.pid) && (await portAccepts(handle.port))) {
      return { url: urlFor(handle.port), owner: false, close: async () => {} };
    }
    let fd: number;
    try {
      fd = openSync(lockPath, 'wx');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const lockPid = Number(readFileSync(lockPath, 'utf8').trim());
      if (!Number.isInteger(lockPid) || lockPid <= 0 || !pidAlive(lockPid)) {
        rmSync(lockPath, { force: true }); // left by a process that died
        continue;
      }
      if (Date.now() > deadline) {
        throw new Error(`The embedded database in ${dir} is held by process ${lockPid}, which does not answer.`);
      }
      await sleep(100); // another process is opening it: wait for its embedded.json
      continue;
    }
    writeSync(fd, String(process.pid));
    closeSync(fd);
    break;
  }

  let db: PGlite | undefined;
  try {
    db = await PGlite.create(join(dir, 'pgdata'));
    const { port, server } = await serve(db);
    writeFileSync(handlePath, JSON.stringify({ pid: process.pid, port } satisfies Handle));
    const opened = db;
    return {
      url: urlFor(port),
      owner: true,
      async close() {
        await server.stop();
        await opened.close();
        rmSync(handlePath, { force: true });
        rmSync(lockPath, { force: true });
      },
    };
  } catch (err) {
    await db?.close().catch(() => {});
    rmSync(lockPath, { force: true });
    throw err;
  }
}
