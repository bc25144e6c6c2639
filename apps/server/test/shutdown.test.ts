import { once } from 'node:events';
import { connect } from 'node:net';
import { deadline } from '@merma/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { createPrisma } from '../src/db/client.js';
import { type BuiltServer, startBuiltServer } from './fixtures/built-server.js';
import { createTenant, createTestDatabase, type TestDatabase, validRecord, verifyAllChains } from './helpers.js';
import { startReceiver, waitFor } from './receiver.js';

/**
 * Graceful shutdown of the built server (`node dist/main.js`) with work in flight: SIGTERM must let
 * a request that is still being received finish with its answer, let a webhook delivery that is
 * being sent finish and be recorded, and then exit 0. (The idle case is in container.test.ts.)
 */

/**
 * A POST sent over a raw socket in two halves: the headers (with `Expect: 100-continue`, so the
 * server's `100 Continue` proves it has read them and started the request) and half the body now,
 * the rest on `finish()`.
 */
async function startHalfSentRequest(base: string, path: string, key: string, body: string, connection: 'close' | 'keep-alive') {
  const { hostname, port } = new URL(base);
  const socket = connect({ host: hostname, port: Number(port) });
  let received = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
  });
  socket.on('error', () => {});
  await once(socket, 'connect');
  socket.write(
    [
      `POST ${path} HTTP/1.1`,
      `Host: ${hostname}:${port}`,
      `Authorization: Bearer ${key}`,
      'Content-Type: application/json',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Expect: 100-continue',
      `Connection: ${connection}`,
      '',
      '',
    ].join('\r\n'),
  );
  await waitFor(() => received.toString('latin1').startsWith('HTTP/1.1 100 Continue\r\n\r\n'), 10_000, '100 Continue');
  const bytes = Buffer.from(body);
  const half = Math.floor(bytes.length / 2);
  socket.write(bytes.subarray(0, half));

  /** The final response once complete: status and parsed JSON body. */
  const response = () =>
    waitFor(
      () => {
        const text = received.toString('latin1').replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, '');
        const end = text.indexOf('\r\n\r\n');
        if (end < 0) return null;
        const head = text.slice(0, end);
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? Number.NaN);
        const rest = received.subarray(received.length - (text.length - end - 4));
        if (!(rest.length >= length)) return null;
        return {
          status: Number(head.split(' ')[1]),
          head,
          body: JSON.parse(rest.subarray(0, length).toString('utf8')) as { data: { id: string; record_hash: string } },
        };
      },
      30_000,
      'the response of the half-sent request',
    );
  const closed = new Promise<void>((done) => socket.once('close', () => done()));
  return {
    finish: () => socket.write(bytes.subarray(half)),
    response,
    /** Settles when the connection is closed (by either side). */
    closed,
    close: () => socket.destroy(),
  };
}

type Call = { status: number; body: { data: { id: string; record_hash: string } } };

describe('SIGTERM with work in flight', () => {
  const servers: BuiltServer[] = [];
  const databases: TestDatabase[] = [];
  let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    await receiver?.close();
    await Promise.all(databases.map((d) => d.drop()));
  });

  /** A built server (on a fresh PostgreSQL database, or on its own embedded PGlite) and a tenant. */
  async function serverWithTenant(env: Record<string, string>) {
    const database = process.env.DATABASE_URL ? await createTestDatabase() : undefined;
    if (database) databases.push(database);
    const server = await startBuiltServer({ ...(database ? { databaseUrl: database.url } : {}), env });
    servers.push(server);
    const setup = createPrisma(server.databaseUrl, 2);
    const tenant = await createTenant(setup).finally(() => setup.$disconnect());
    const call = async (path: string, body: unknown): Promise<Call> => {
      const res = await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Call['body'] };
    };
    return { server, tenant, call };
  }

  const halfSentRecord = (server: BuiltServer, key: string, connection: 'close' | 'keep-alive') =>
    startHalfSentRequest(
      server.url,
      '/api/v1/records',
      key,
      JSON.stringify(validRecord({ weight_kg: 3, notes: `en vuelo ${'·'.repeat(400)}` })),
      connection,
    );

  /** SIGTERM while `inFlight` is half sent; once draining has begun, its rest is sent: answered 201. */
  async function answeredDuringDrain(server: BuiltServer, inFlight: Awaited<ReturnType<typeof halfSentRecord>>) {
    server.child.kill('SIGTERM');
    await server.waitForLog(/shutting down: draining in-flight requests and jobs/);
    inFlight.finish();
    const answer = await inFlight.response();
    expect(answer.status, answer.head).toBe(201);
    return answer;
  }

  it('answers the request still being received, records the delivery being sent, then exits 0', {
    timeout: deadline(120_000),
  }, async () => {
    // The receiver holds its answer for a second: the delivery is in flight while the server stops.
    receiver = await startReceiver((_req, res) => {
      setTimeout(() => res.end('ok'), 1_000);
    });
    const { server, tenant, call } = await serverWithTenant({ WORKER_CONCURRENCY: '2', WEBHOOKS_ALLOW_PRIVATE: 'true' });
    expect((await call('/api/v1/webhooks', { url: `${receiver.url}/hook`, events: ['record.created'] })).status).toBe(201);
    const first = await call('/api/v1/records', validRecord({ weight_kg: 2, notes: 'antes del apagado' }));
    expect(first.status).toBe(201);
    // Its delivery has reached the receiver, which has not answered yet.
    await waitFor(() => receiver?.received.find((r) => r.body.includes(first.body.data.id)), 15_000, 'the delivery to start');

    // A record whose body is still arriving (its client closes the connection after the answer).
    const inFlight = await halfSentRecord(server, tenant.key, 'close');
    try {
      const answer = await answeredDuringDrain(server, inFlight);
      expect(answer.body.data).toMatchObject({ weight_kg: 3, record_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });

      const exit = await server.exited;
      expect(exit, server.output().slice(-3000)).toEqual({ code: 0, signal: null });

      // Both records are stored, the delivery that was in flight is recorded as a success, and the
      // chain verifies.
      const data = await server.openData();
      const db = createPrisma(data.url, 2);
      try {
        const stored = await db.record.findMany({ where: { establishment_id: tenant.establishmentId }, orderBy: { chain_seq: 'asc' } });
        expect(stored.map((r) => [r.id, r.record_hash])).toEqual([
          [first.body.data.id, first.body.data.record_hash],
          [answer.body.data.id, answer.body.data.record_hash],
        ]);
        const delivery = await db.webhookDelivery.findFirstOrThrow({
          where: { event: { payload: { path: ['data', 'id'], equals: first.body.data.id } } },
          include: { attempt_rows: true },
        });
        expect(delivery).toMatchObject({ status: 'succeeded', attempts: 1 });
        expect(delivery.attempt_rows.map((a) => [a.attempt, a.response_status, a.error])).toEqual([[1, 200, null]]);
        // The event of the record stored during shutdown is kept (sent, or waiting for the next start).
        expect(await db.event.count({ where: { payload: { path: ['data', 'id'], equals: answer.body.data.id } } })).toBe(1);
        expect(await db.webhookDelivery.count({ where: { status: 'failed' } })).toBe(0);
        const chains = await verifyAllChains(db);
        expect(chains.find((c) => c.establishment_id === tenant.establishmentId && !c.livemode)).toEqual({
          establishment_id: tenant.establishmentId,
          livemode: false,
          checked: 2,
          valid: true,
          first_invalid: null,
        });
        expect(chains.filter((c) => !c.valid)).toEqual([]);
      } finally {
        await db.$disconnect();
        await data.close();
      }
    } finally {
      inFlight.close();
    }
  });

  // A client that keeps its connection alive (browsers, fetch/undici, proxies) and whose request is
  // answered during the drain must not keep the server from closing: answers sent once close began
  // say `Connection: close` (http/app.ts). Without it app.close() waited for that connection and
  // the 25-second guard in serve.ts ended the process with exit code 1.
  it('closes a kept-alive connection once its in-flight request is answered, then exits 0', { timeout: deadline(120_000) }, async () => {
    const { server, tenant } = await serverWithTenant({});
    const inFlight = await halfSentRecord(server, tenant.key, 'keep-alive');
    try {
      await answeredDuringDrain(server, inFlight);
      // The server ends the connection (the client does nothing), and the process exits cleanly.
      await inFlight.closed;
      expect(await server.exited, server.output().slice(-3000)).toEqual({ code: 0, signal: null });
    } finally {
      inFlight.close();
    }
  });
});
