import { createServer, type Server, type Socket, connect as tcp } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { waitForDatabase } from '../src/db/wait.js';
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
    const log = warnings();
    const started = Date.now();
    setTimeout(() => {
      const target = new URL(db.url);
      void listen(port, (client) => {
        const upstream = tcp(Number(target.port || 5432), target.hostname);
        client.pipe(upstream).pipe(client);
        client.on('error', () => upstream.destroy());
        upstream.on('error', () => client.destroy());
      });
    }, 1500);
    await waitForDatabase(urlOn(port), { timeoutMs: 20_000, log });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
    expect(log.lines.length).toBeGreaterThanOrEqual(2);
    expect(log.lines[0]).toMatchObject({ host: '127.0.0.1', port: String(port), code: 'ECONNREFUSED' });
    expect(JSON.stringify(log.lines)).not.toContain(new URL(db.url).password || '\u0000');
  });

  it('gives up after its timeout with the connection error', async () => {
    const port = await freePort();
    const started = Date.now();
    await expect(waitForDatabase(urlOn(port), { timeoutMs: 1200 })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(1200);
    expect(waited).toBeLessThan(8000);
  });

  it('does not wait when DATABASE_URL is wrong: a database that does not exist fails at once', async () => {
    const port = await freePort();
    // PostgreSQL's answer to a startup message naming a missing database: ErrorResponse, FATAL 3D000.
    await listen(port, (socket) => {
      socket.once('data', () => {
        const fields = Buffer.from('SFATAL\0VFATAL\0C3D000\0Mdatabase "nope" does not exist\0\0');
        const head = Buffer.alloc(5);
        head.write('E');
        head.writeInt32BE(fields.length + 4, 1);
        socket.end(Buffer.concat([head, fields]));
      });
    });
    const log = warnings();
    const started = Date.now();
    await expect(waitForDatabase(urlOn(port), { timeoutMs: 20_000, log })).rejects.toMatchObject({ code: '3D000' });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(log.lines).toEqual([]);
  });

  it('the server waits 60 s by default; DATABASE_STARTUP_TIMEOUT_SECONDS sets it', () => {
    expect(loadConfig({}).databaseStartupTimeoutMs).toBe(60_000);
    expect(loadConfig({ DATABASE_STARTUP_TIMEOUT_SECONDS: '7' }).databaseStartupTimeoutMs).toBe(7000);
    expect(() => loadConfig({ DATABASE_STARTUP_TIMEOUT_SECONDS: '-1' })).toThrow(/DATABASE_STARTUP_TIMEOUT_SECONDS/);
  });
});
