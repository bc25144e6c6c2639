import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signWebhook, verifyWebhook, WebhookVerificationError } from '../src/index.js';
import { DESTINO, uuid } from './setup.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const NOW = new Date('2026-11-23T10:00:00.000Z');
const TS = Math.floor(NOW.getTime() / 1000);
const event = {
  event: 'record.created',
  timestamp: '2026-11-23T10:00:00.000Z',
  data: {
    id: uuid(1),
    establishment_id: uuid(2),
    food_category: 'bakery',
    weight_kg: 3.2,
    created_at: '2026-11-23T09:59:59.000Z',
    cause: 'Caducidad',
    destination: 'Donación para consumo humano',
  },
};
const body = JSON.stringify(event);

describe('verifyWebhook', () => {
  it('accepts a delivery signed by the API and returns the typed event', async () => {
    const headers = await signWebhook({ payload: body, secret: SECRET, id: 'msg_1', timestamp: TS });
    const verified = await verifyWebhook({ payload: body, headers, secret: SECRET, now: NOW });
    expect(verified.event).toBe('record.created');
    if (verified.event === 'record.created') expect(verified.data.destination).toBe('Donación para consumo humano');
  });

  it('matches an independent HMAC: hex over the raw body with the secret string', async () => {
    const headers = await signWebhook({ payload: body, secret: SECRET, id: 'msg_1', timestamp: TS });
    expect(headers['x-service-signature']).toBe(createHmac('sha256', SECRET).update(body).digest('hex'));
    const standardKey = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', standardKey).update(`msg_1.${TS}.${body}`).digest('base64');
    expect(headers['webhook-signature']).toBe(`v1,${expected}`);
  });

  it('accepts Uint8Array bodies, Headers objects and X-Service-Signature alone', async () => {
    const headers = await signWebhook({ payload: body, secret: SECRET, timestamp: TS });
    const bytes = new TextEncoder().encode(body);
    await expect(verifyWebhook({ payload: bytes, headers: new Headers(headers), secret: SECRET, now: NOW })).resolves.toMatchObject({
      event: 'record.created',
    });
    const onlyService = { 'X-Service-Signature': headers['x-service-signature'] as string };
    await expect(verifyWebhook({ payload: body, headers: onlyService, secret: SECRET })).resolves.toMatchObject({
      event: 'record.created',
    });
  });

  it.each([
    [
      'a tampered body',
      async (h: Record<string, string>) => ({ payload: body.replace('3.2', '0.2'), headers: h, secret: SECRET, now: NOW }),
      /does not match/,
    ],
    [
      'a wrong secret',
      async (h: Record<string, string>) => ({ payload: body, headers: h, secret: 'whsec_other', now: NOW }),
      /does not match/,
    ],
    [
      'a stale timestamp',
      async (h: Record<string, string>) => ({ payload: body, headers: h, secret: SECRET, now: new Date(NOW.getTime() + 301_000) }),
      /tolerance/,
    ],
    [
      'a future timestamp',
      async (h: Record<string, string>) => ({ payload: body, headers: h, secret: SECRET, now: new Date(NOW.getTime() - 600_000) }),
      /tolerance/,
    ],
    ['no signature headers', async () => ({ payload: body, headers: {}, secret: SECRET, now: NOW }), /Missing signature/],
    [
      'a missing webhook-id',
      async (h: Record<string, string>) => {
        const { 'webhook-id': _id, ...rest } = h;
        return { payload: body, headers: rest, secret: SECRET, now: NOW };
      },
      /Incomplete/,
    ],
    [
      'a forged standard signature',
      async (h: Record<string, string>) => ({ payload: body, headers: { ...h, 'webhook-signature': 'v1,AAAA' }, secret: SECRET, now: NOW }),
      /webhook-signature/,
    ],
  ] as const)('refuses %s', async (_name, build, message) => {
    const headers = await signWebhook({ payload: body, secret: SECRET, timestamp: TS });
    const err = await verifyWebhook(await build(headers)).catch((e) => e);
    expect(err).toBeInstanceOf(WebhookVerificationError);
    expect(err.message).toMatch(message);
  });

  it('refuses a correctly signed body that is not a known event', async () => {
    const other = JSON.stringify({ event: 'record.deleted', timestamp: '2026-11-23T10:00:00.000Z', data: { destino_id: DESTINO } });
    const headers = await signWebhook({ payload: other, secret: SECRET, timestamp: TS });
    await expect(verifyWebhook({ payload: other, headers, secret: SECRET, now: NOW })).rejects.toThrow(/Unknown event/);
  });

  it('uses the UTF-8 bytes of a secret without the whsec_ prefix for both signatures', async () => {
    const plain = 'my-own-secret-of-at-least-24-chars';
    const headers = await signWebhook({ payload: body, secret: plain, id: 'msg_2', timestamp: TS });
    expect(headers['webhook-signature']).toBe(`v1,${createHmac('sha256', plain).update(`msg_2.${TS}.${body}`).digest('base64')}`);
    await expect(verifyWebhook({ payload: body, headers, secret: plain, now: NOW })).resolves.toBeTruthy();
  });
});
