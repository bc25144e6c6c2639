import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { MermaError, signWebhook, type UnknownWebhookEvent, verifyWebhook, WebhookVerificationError } from '../src/index.js';
import { uuid } from './setup.js';

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
    livemode: true,
    created_at: '2026-11-23T09:59:59.000Z',
    occurred_at: '2026-11-23T09:30:00.000Z',
    destino_id: uuid(3),
    causa_id: uuid(4),
    cause: 'Caducidad',
    destination: 'Donación para consumo humano',
    product_id: uuid(5),
    product_name: 'cruasán',
    shift_id: uuid(6),
    notes: 'albarán 1234',
  },
};
const body = JSON.stringify(event);
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: unknown) => e,
  );

describe('verifyWebhook', () => {
  it('verifies the Standard Webhooks published test vector at its time, and returns its body', async () => {
    const headers = {
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    };
    const verified = await verifyWebhook({ payload: '{"test": 2432232314}', headers, secret: SECRET, now: new Date(1614265330 * 1000) });
    expect(verified).toEqual({ test: 2432232314 });
    // The same capture, later: outside the 5-minute tolerance.
    const late = await refusal(verifyWebhook({ payload: '{"test": 2432232314}', headers, secret: SECRET, now: NOW }));
    expect(late).toBeInstanceOf(WebhookVerificationError);
  });

  it('verifies bodies signed by the reference standardwebhooks library', async () => {
    const msgTime = new Date();
    for (const payload of [body, '{"event":"record.created","timestamp":"x","data":{"id":"1"}}', '[]', '"text"']) {
      const headers = {
        'webhook-id': 'msg_ref',
        'webhook-timestamp': String(Math.floor(msgTime.getTime() / 1000)),
        'webhook-signature': new Webhook(SECRET).sign('msg_ref', msgTime, payload),
      };
      expect(await verifyWebhook({ payload, headers, secret: SECRET })).toEqual(JSON.parse(payload));
    }
  });

  it('signWebhook refuses a timestamp in milliseconds (or not whole seconds) instead of signing a delivery no receiver accepts', async () => {
    const ms = 1_764_300_000_000;
    await expect(signWebhook({ payload: body, secret: SECRET, timestamp: ms })).rejects.toThrow(
      new MermaError(
        `signWebhook: timestamp ${ms} looks like milliseconds; Standard Webhooks timestamps are Unix seconds (Math.floor(${ms} / 1000) = 1764300000)`,
      ),
    );
    for (const wrong of [1_764_300_000.5, -1, Number.NaN]) {
      await expect(signWebhook({ payload: body, secret: SECRET, timestamp: wrong })).rejects.toThrow(
        /timestamp must be whole Unix seconds/,
      );
    }
    const headers = await signWebhook({ payload: body, secret: SECRET, timestamp: 1_764_300_000 });
    expect(headers['webhook-timestamp']).toBe('1764300000');
  });

  it("signs what the reference library verifies (signWebhook is the API's own signing)", async () => {
    const headers = await signWebhook({ payload: body, secret: SECRET });
    expect(new Webhook(SECRET).verify(body, headers)).toEqual(event);
    expect(headers['x-service-signature']).toBe(createHmac('sha256', SECRET).update(body).digest('hex'));
  });

  it('returns a record.created event typed, including one without the optional cause and destination', async () => {
    const minimal = JSON.stringify({
      ...event,
      data: { id: uuid(1), establishment_id: uuid(2), food_category: 'bakery', weight_kg: 1, created_at: event.data.created_at },
    });
    for (const payload of [body, minimal]) {
      const headers = await signWebhook({ payload, secret: SECRET, id: 'msg_1', timestamp: TS });
      const verified = await verifyWebhook({ payload, headers, secret: SECRET, now: NOW });
      expect(verified.event).toBe('record.created');
      if (verified.event === 'record.created') expect(verified.data.id).toBe(uuid(1));
    }
    // The ids an ERP files the record by are typed.
    const full = await verifyWebhook({
      payload: body,
      headers: await signWebhook({ payload: body, secret: SECRET, timestamp: TS }),
      secret: SECRET,
      now: NOW,
    });
    if (full.event !== 'record.created') throw new Error('expected record.created');
    const filed: [string, string | null, string | null, string | null, boolean] = [
      full.data.destino_id,
      full.data.causa_id,
      full.data.product_id,
      full.data.shift_id,
      full.data.livemode,
    ];
    expect(filed).toEqual([uuid(3), uuid(4), uuid(5), uuid(6), true]);
  });

  it('returns an event type added later as a generic event, not an exception', async () => {
    const future = JSON.stringify({ event: 'forecast.published', timestamp: '2026-11-23T10:00:00.000Z', data: { horizon: 7 }, version: 2 });
    const headers = await signWebhook({ payload: future, secret: SECRET, timestamp: TS });
    const verified = await verifyWebhook({ payload: future, headers, secret: SECRET, now: NOW });
    expect(verified).toEqual(JSON.parse(future));
    let handled = '';
    switch (verified.event) {
      case 'record.created':
        handled = 'record';
        break;
      default: {
        const other: UnknownWebhookEvent = verified;
        handled = other.event;
      }
    }
    expect(handled).toBe('forecast.published');
  });

  it('refuses a tampered body, another secret, a foreign id and a stale or future timestamp', async () => {
    const headers = await signWebhook({ payload: body, secret: SECRET, id: 'msg_1', timestamp: TS });
    const cases: [Parameters<typeof verifyWebhook>[0], RegExp][] = [
      [{ payload: body.replace('3.2', '9.2'), headers, secret: SECRET, now: NOW }, /does not match/],
      [{ payload: body, headers, secret: 'whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYX', now: NOW }, /does not match/],
      [{ payload: body, headers: { ...headers, 'webhook-id': 'msg_2' }, secret: SECRET, now: NOW }, /does not match/],
      [{ payload: body, headers, secret: SECRET, now: new Date(NOW.getTime() + 301_000) }, /old/],
      [{ payload: body, headers, secret: SECRET, now: new Date(NOW.getTime() - 301_000) }, /future/],
      [{ payload: body, headers, secret: SECRET, now: new Date(NOW.getTime() + 3_600_000), tolerance: 3_000 }, /old/],
      [{ payload: body, headers: {}, secret: SECRET }, /Missing signature headers/],
      [{ payload: body, headers, secret: '' }, /No webhook secret/],
    ];
    for (const [options, message] of cases) {
      const err = await refusal(verifyWebhook(options));
      expect(err).toBeInstanceOf(WebhookVerificationError);
      expect(err).toBeInstanceOf(MermaError);
      expect((err as Error).message).toMatch(message);
    }
    // A larger tolerance accepts the hour-old delivery.
    await expect(
      verifyWebhook({ payload: body, headers, secret: SECRET, now: new Date(NOW.getTime() + 3_600_000), tolerance: 3_700 }),
    ).resolves.toEqual(event);
  });

  it('refuses a correctly signed body that is not JSON', async () => {
    const headers = await signWebhook({ payload: 'not json', secret: SECRET, timestamp: TS });
    const err = await refusal(verifyWebhook({ payload: 'not json', headers, secret: SECRET, now: NOW }));
    expect(err).toBeInstanceOf(WebhookVerificationError);
    expect((err as Error).message).toMatch(/not JSON/);
  });

  it('by default refuses a stale capture stripped of its timestamped headers; the bare scheme is an explicit opt-in', async () => {
    // Captured a day ago; an attacker strips webhook-* and replays it with X-Service-Signature alone.
    const captured = await signWebhook({ payload: body, secret: SECRET, timestamp: TS - 86_400 });
    const stripped = { 'x-service-signature': captured['x-service-signature'] as string };
    const err = await refusal(verifyWebhook({ payload: body, headers: stripped, secret: SECRET, now: NOW }));
    expect(err).toBeInstanceOf(WebhookVerificationError);
    expect((err as Error).message).toMatch(/allowServiceSignatureOnly/);
    // A receiver of the contract's bare scheme opts in, knowingly.
    await expect(verifyWebhook({ payload: body, headers: stripped, secret: SECRET, allowServiceSignatureOnly: true })).resolves.toEqual(
      event,
    );
    await expect(
      verifyWebhook({ payload: `${body} `, headers: stripped, secret: SECRET, allowServiceSignatureOnly: true }),
    ).rejects.toBeInstanceOf(WebhookVerificationError);
  });

  it('accepts Uint8Array and ArrayBuffer bodies and Headers objects', async () => {
    const headers = await signWebhook({ payload: body, secret: SECRET, timestamp: TS });
    const bytes = new TextEncoder().encode(body);
    for (const payload of [bytes, bytes.buffer]) {
      await expect(verifyWebhook({ payload, headers: new Headers(headers), secret: SECRET, now: NOW })).resolves.toEqual(event);
    }
  });

  it('during a rotation, verifies with either secret or with both', async () => {
    const next = 'whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYX';
    const headers = await signWebhook({ payload: body, secret: [next, SECRET], timestamp: TS });
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    for (const secret of [SECRET, next, [next, SECRET], [SECRET, next]]) {
      await expect(verifyWebhook({ payload: body, headers, secret, now: NOW })).resolves.toEqual(event);
    }
    await expect(verifyWebhook({ payload: body, headers, secret: 'whsec_BBECAwQFBgcICQoLDA0ODxAREhMUFRYX', now: NOW })).rejects.toThrow(
      /does not match/,
    );
  });
});
