import { createServer, type Server, type Socket, connect as tcp } from 'node:net';
import { deadline } from '@merma/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { waitForDatabase, whileUnavailable } from '../src/db/wait.js';
import { createTestDatabase, type TestDatabase } from './helpers.js';

/**
 * The boot waits for a database started together with the server (compose, a restarting pod), and
 * fails at once on a mistake in DATABASE_URL. Real TCP: a port where nothing listens until a proxy
 * to the test database opens on it, and a peer answering the startup message as PostgreSQL does
 * for a database that does not exist.
 */
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});
const freePort = async () => {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
};
const listen = async (port: number, onSocket: (socket: Socket) => void) => {
  const server = createServer(onSocket);
  servers.push(server);
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
};
const urlOn = (port: number) => Object.assign(new URL(db.url), { hostname: '127.0.0.1', port: String(port) }).toString();
const warnings = () => {
  const lines: Record<string, unknown>[] = [];
  return { lines, warn: (o: Record<string, unknown>) => lines.push(o) };
};

describe('waiting for the database at boot', () => {
  it('waits while nothing listens, and goes on once the database accepts connections', async () => {
    const port = await freePort();
    const lines: Record<string, unknown>[] = [];
    let opened: Promise<void> | undefined;
    // The database comes up after the second refused attempt: the wait must have gone on past both.
    const log = {
      lines,
      warn: (o: Record<string, unknown>) => {
        lines.push(o);
        if (lines.length !== 2) return;
        const target = new URL(db.url);
        opened = listen(port, (client) => {
          const upstream = tcp(Number(target.port || 5432), target.hostname);
          client.pipe(upstream).pipe(client);
          client.on('error', () => upstream.destroy());
          upstream.on('error', () => client.destroy());
        });
      },
    };
    await waitForDatabase(urlOn(port), { timeoutMs: deadline(20_000), log });
    expect(opened).toBeDefined();
    expect(log.lines.length).toBeGreaterThanOrEqual(2);
    expect(log.lines[0]).toMatchObject({ host: '127.0.0.1', port: String(port), code: 'ECONNREFUSED' });
    expect(JSON.stringify(log.lines)).not.toContain(new URL(db.url).password || '\u0000');
  });

  it('gives up after its timeout with the connection error', async () => {
    const port = await freePort();
    const log = warnings();
    const started = Date.now();
    await expect(waitForDatabase(urlOn(port), { timeoutMs: 1200, log })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    // It waited its time (a lower bound a timer cannot beat), and no pause it chose ran past it.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1200);
    expect(log.lines.length).toBeGreaterThanOrEqual(2);
    for (const line of log.lines) expect((line.waitedMs as number) + (line.retryInMs as number)).toBeLessThanOrEqual(1200);
  });

  it('does not wait when DATABASE_URL is wrong: a database that does not exist fails at once', async () => {
    const port = await freePort();
    // PostgreSQL's answer to a startup message naming a missing database: ErrorResponse, FATAL 3D000.
    let connections = 0;
    await listen(port, (socket) => {
      connections++;
      socket.once('data', () => {
        const fields = Buffer.from('SFATAL\0VFATAL\0C3D000\0Mdatabase "nope" does not exist\0\0');
        const head = Buffer.alloc(5);
        head.write('E');
        head.writeInt32BE(fields.length + 4, 1);
        socket.end(Buffer.concat([head, fields]));
      });
    });
    const log = warnings();
    // With a long wait allowed, it still tries once: a second attempt would come after 0.25 s.
    await expect(waitForDatabase(urlOn(port), { timeoutMs: deadline(20_000), log })).rejects.toMatchObject({ code: '3D000' });
    expect(connections).toBe(1);
    expect(log.lines).toEqual([]);
  });

  it('the server waits 60 s by default; DATABASE_STARTUP_TIMEOUT_SECONDS sets it', () => {
    expect(loadConfig({}).databaseStartupTimeoutMs).toBe(60_000);
    expect(loadConfig({ DATABASE_STARTUP_TIMEOUT_SECONDS: '7' }).databaseStartupTimeoutMs).toBe(7000);
    expect(() => loadConfig({ DATABASE_STARTUP_TIMEOUT_SECONDS: '-1' })).toThrow(/DATABASE_STARTUP_TIMEOUT_SECONDS/);
  });
});

describe('a write tried again while the database is away', () => {
  /** A write that fails with each of `errors` in turn, then answers 'done'; the pauses it was given. */
  const flaky = (errors: unknown[]) => {
    const pauses: number[] = [];
    let calls = 0;
    const write = async () => {
      const err = errors[calls++];
      if (err !== undefined) throw err;
      return 'done';
    };
    return { write, pauses, calls: () => calls, sleep: async (ms: number) => void pauses.push(ms) };
  };
  const cut = () => new Error('Connection terminated unexpectedly');
  const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

  it('tries again while the connection is refused or cut, pausing 0.25 s and doubling to 4 s', async () => {
    const w = flaky([refused(), cut(), cut(), cut(), cut(), cut(), cut()]);
    expect(await whileUnavailable(w.write, { sleep: w.sleep })).toBe('done');
    expect(w.pauses).toEqual([250, 500, 1000, 2000, 4000, 4000, 4000]);
    expect(w.calls()).toBe(8);
  });

  it('throws any other error at once: a constraint or a bug is not waited on', async () => {
    const unique = Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' });
    const w = flaky([unique]);
    await expect(whileUnavailable(w.write, { sleep: w.sleep })).rejects.toBe(unique);
    expect(w.pauses).toEqual([]);
  });

  it('waits at most its budget in all: a pause that would pass it is not taken, and the last error is thrown', async () => {
    // 250 + 500 + 1000 = 1750 ms: within a 1750 ms budget, the fourth try happens; not within 1749.
    const within = flaky([cut(), cut(), cut()]);
    expect(await whileUnavailable(within.write, { sleep: within.sleep, budgetMs: 1750 })).toBe('done');
    const last = cut();
    const over = flaky([cut(), cut(), last]);
    await expect(whileUnavailable(over.write, { sleep: over.sleep, budgetMs: 1749 })).rejects.toBe(last);
    expect(over.pauses).toEqual([250, 500]);
  });
});
