import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Merma, signWebhook, verifyWebhook, type WebhookEvent } from '@merma/sdk';
import { DESTINO_DONATION, startTestServer, type TestServer } from '@merma/test-server';
import { deadline } from '@merma/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/express.mjs';
import { createReceiver, SeenIds } from '../src/server.mjs';

/**
 * Both receivers over real HTTP: deliveries signed with the SDK's signWebhook (as Merma signs
 * them), tampered, stale and replayed; then real deliveries from the webhook worker of the real
 * built server (@merma/test-server).
 */
const SECRET = `whsec_${randomBytes(32).toString('base64')}`;

type Options = { secret: string; onEvent: (event: WebhookEvent, id: string) => void; log: (line: string) => void };
const variants: { name: string; server: (o: Options) => Server }[] = [
  { name: 'node:http (src/server.mjs)', server: (o) => createReceiver(o) },
  { name: 'Express 5 (src/express.mjs)', server: (o) => createServer(createApp(o)) },
];

async function startVariant(make: (o: Options) => Server, secret = SECRET) {
  const events: { event: WebhookEvent; id: string }[] = [];
  const logs: string[] = [];
  const server = make({ secret, onEvent: (event, id) => void events.push({ event, id }), log: (l) => void logs.push(l) });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/merma/webhooks`;
  return {
    url,
    events,
    logs,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function waitFor<T>(check: () => T, what: string, timeoutMs = 15_000): Promise<NonNullable<T>> {
  const giveUpAt = Date.now() + deadline(timeoutMs);
  for (;;) {
    const value = check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > giveUpAt) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const post = (url: string, body: string, headers: Record<string, string>) =>
  fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });

function recordCreated(weight = 2.5) {
  return {
    event: 'record.created',
    timestamp: new Date().toISOString(),
    data: {
      id: randomUUID(),
      establishment_id: randomUUID(),
      food_category: 'bakery',
      weight_kg: weight,
      created_at: new Date().toISOString(),
      cause: 'Caducidad',
      destination: 'Donación para consumo humano',
    },
  };
}

describe.each(variants)('$name', ({ server }) => {
  let receiver: Awaited<ReturnType<typeof startVariant>>;
  beforeAll(async () => {
    receiver = await startVariant(server);
  });
  afterAll(() => receiver?.close());

  it('accepts a signed delivery with 200 and handles the typed event once, after answering', async () => {
    const payload = JSON.stringify(recordCreated());
    const headers = await signWebhook({ payload, secret: SECRET });
    const res = await post(receiver.url, payload, headers);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'accepted' });
    const got = await waitFor(() => receiver.events.find((e) => e.id === headers['webhook-id']), 'the event');
    expect(got.event.event).toBe('record.created');
    expect(got.event).toEqual(JSON.parse(payload));
  });

  it('verifies the raw bytes: a pretty-printed body is accepted, though re-serialising it would not verify', async () => {
    const payload = `${JSON.stringify(recordCreated(1.25), null, 2)}\n`;
    const headers = await signWebhook({ payload, secret: SECRET });
    // What a JSON body parser followed by JSON.stringify would hand to the verifier:
    await expect(verifyWebhook({ payload: JSON.stringify(JSON.parse(payload)), headers, secret: SECRET })).rejects.toThrow(
      /does not match/,
    );
    const res = await post(receiver.url, payload, headers);
    expect(res.status).toBe(200);
    await waitFor(() => receiver.events.find((e) => e.id === headers['webhook-id']), 'the event');
  });

  it('rejects a tampered body, a wrong secret, a stale timestamp and a delivery without webhook-id with 400', async () => {
    const before = receiver.events.length;
    const payload = JSON.stringify(recordCreated(2));
    const headers = await signWebhook({ payload, secret: SECRET });
    const tampered = await post(receiver.url, payload.replace('"weight_kg":2', '"weight_kg":0.2'), headers);
    expect(tampered.status).toBe(400);
    expect(((await tampered.json()) as { error: string }).error).toMatch(/does not match/);

    const wrongSecret = await signWebhook({ payload, secret: `whsec_${randomBytes(32).toString('base64')}` });
    expect((await post(receiver.url, payload, wrongSecret)).status).toBe(400);

    const stale = await signWebhook({ payload, secret: SECRET, timestamp: Math.floor(Date.now() / 1000) - 600 });
    const staleRes = await post(receiver.url, payload, stale);
    expect(staleRes.status).toBe(400);
    expect(((await staleRes.json()) as { error: string }).error).toMatch(/more than 300 s old/);

    const { 'x-service-signature': serviceOnly } = headers;
    expect((await post(receiver.url, payload, { 'x-service-signature': serviceOnly as string })).status).toBe(400);
    expect(receiver.events.length).toBe(before);
  });

  it('refuses a body over 1 MiB with 413', async () => {
    const payload = JSON.stringify({ ...recordCreated(), padding: 'x'.repeat(1_100_000) });
    const res = await post(receiver.url, payload, await signWebhook({ payload, secret: SECRET }));
    expect(res.status).toBe(413);
  });

  it('acknowledges a replayed webhook-id with 200 "duplicate" and does not handle it again', async () => {
    const payload = JSON.stringify(recordCreated(3));
    const headers = await signWebhook({ payload, secret: SECRET });
    expect((await post(receiver.url, payload, headers)).status).toBe(200);
    await waitFor(() => receiver.events.find((e) => e.id === headers['webhook-id']), 'the event');

    // The same delivery again (a replay, or Merma retrying after our answer was lost) …
    const replay = await post(receiver.url, payload, headers);
    expect(replay.status).toBe(200);
    expect(await replay.json()).toEqual({ status: 'duplicate' });
    // … and re-signed with a fresh timestamp, as Merma does on each retry: still the same webhook-id.
    const retry = await signWebhook({ payload, secret: SECRET, id: headers['webhook-id'] as string });
    expect(await (await post(receiver.url, payload, retry)).json()).toEqual({ status: 'duplicate' });
    await new Promise((r) => setTimeout(r, 50));
    expect(receiver.events.filter((e) => e.id === headers['webhook-id'])).toHaveLength(1);
    expect(receiver.logs).toContain(`duplicate ${headers['webhook-id']}: already handled, not processed again`);
  });
});

describe('SeenIds', () => {
  it('forgets an id after its time', () => {
    let now = 0;
    const seen = new SeenIds(1_000, () => now);
    expect(seen.add('a')).toBe(true);
    expect(seen.add('a')).toBe(false);
    now = 500;
    expect(seen.add('b')).toBe(true);
    now = 1_200;
    expect(seen.add('a')).toBe(true);
    expect(seen.size).toBe(2);
  });
});

describe('deliveries from the Merma server', () => {
  let t: TestServer;
  let baseUrl: string;
  beforeAll(async () => {
    t = await startTestServer({ env: { WEBHOOKS_ALLOW_PRIVATE: 'true' }, worker: true });
    baseUrl = t.url;
  });
  afterAll(() => t?.close());

  it.each(variants)('$name receives record.created, and a resent delivery is acknowledged as a duplicate', async ({ server }) => {
    const tenant = await t.createTenant();
    const merma = new Merma({ apiKey: tenant.key, baseUrl });
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const receiver = await startVariant(server, secret);
    try {
      const sub = await merma.webhooks.create({ url: receiver.url, events: ['record.created'], secret });
      const record = await merma.records.create({ food_category: 'dairy', weight_kg: 1.75, destino_id: DESTINO_DONATION });

      const got = await waitFor(
        () => receiver.events.find((e) => e.event.event === 'record.created' && e.event.data.id === record.id),
        'the delivery',
      );
      expect(got.event.data).toMatchObject({ weight_kg: 1.75, food_category: 'dairy', destination: 'Donación para consumo humano' });
      // What an ERP files the record by, without asking the API again.
      expect(got.event.data).toMatchObject({
        destino_id: DESTINO_DONATION,
        causa_id: null,
        product_id: null,
        shift_id: null,
        notes: null,
        livemode: false,
        occurred_at: record.occurred_at,
      });

      const [delivery] = (await merma.webhooks.deliveries(sub.id)).data;
      expect(delivery).toMatchObject({ id: got.id, status: 'succeeded', response_status: 200 });
      await merma.webhooks.retryDelivery(sub.id, got.id);
      await waitFor(() => receiver.logs.includes(`duplicate ${got.id}: already handled, not processed again`), 'the resend');
      expect(receiver.events.filter((e) => e.id === got.id)).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });
});
