import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { generateSecret, secretProblem, signDelivery, standardKeyBytes, verifyDelivery } from '../src/index.js';

// Published by Standard Webhooks (and Svix) for every implementation to reproduce.
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};
const vectorHeaders = { 'webhook-id': VECTOR.id, 'webhook-timestamp': String(VECTOR.timestamp), 'webhook-signature': VECTOR.signature };
const vectorNow = new Date(VECTOR.timestamp * 1000);
const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('the Standard Webhooks test vector', () => {
  it('is reproduced by signDelivery', async () => {
    const headers = await signDelivery({ payload: VECTOR.body, secrets: VECTOR.secret, id: VECTOR.id, timestamp: VECTOR.timestamp });
    expect(headers['webhook-signature']).toBe(VECTOR.signature);
    expect(headers['webhook-timestamp']).toBe('1614265330');
    // X-Service-Signature: hex HMAC of the body keyed with the secret string, as the contract says.
    expect(headers['x-service-signature']).toBe(createHmac('sha256', VECTOR.secret).update(VECTOR.body).digest('hex'));
  });

  it('verifies at its own time and is refused outside the tolerance', async () => {
    expect(await verifyDelivery({ payload: VECTOR.body, headers: vectorHeaders, secret: VECTOR.secret, now: vectorNow })).toEqual({
      ok: true,
      scheme: 'standard-webhooks',
    });
    const late = new Date((VECTOR.timestamp + 301) * 1000);
    const result = await verifyDelivery({ payload: VECTOR.body, headers: vectorHeaders, secret: VECTOR.secret, now: late });
    expect(result).toMatchObject({ ok: false, reason: expect.stringContaining('old') });
    const early = new Date((VECTOR.timestamp - 301) * 1000);
    expect(await verifyDelivery({ payload: VECTOR.body, headers: vectorHeaders, secret: VECTOR.secret, now: early })).toMatchObject({
      ok: false,
      reason: expect.stringContaining('future'),
    });
  });

  it('is refused when one byte of the body changes', async () => {
    const result = await verifyDelivery({ payload: '{"test": 2432232315}', headers: vectorHeaders, secret: VECTOR.secret, now: vectorNow });
    expect(result).toEqual({ ok: false, reason: 'webhook-signature does not match the body, id, timestamp and secret' });
  });
});

describe('agreement with the reference library (standardwebhooks)', () => {
  it('the reference library verifies what we sign, with generated secrets', async () => {
    for (let i = 0; i < 20; i++) {
      const secret = generateSecret();
      const body = JSON.stringify({ event: 'record.created', n: i, text: 'pan dulce ñ €' });
      const headers = await signDelivery({ payload: body, secrets: secret, id: `msg_${i}`, timestamp: nowSeconds() });
      expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    }
  });

  it('we verify what the reference library signs', async () => {
    const secret = generateSecret();
    const body = '{"event":"future.event","data":{"x":1}}';
    const ts = new Date();
    const signature = new Webhook(secret).sign('msg_ref', ts, body);
    const headers = {
      'webhook-id': 'msg_ref',
      'webhook-timestamp': String(Math.floor(ts.getTime() / 1000)),
      'webhook-signature': signature,
    };
    expect(await verifyDelivery({ payload: body, headers, secret })).toEqual({ ok: true, scheme: 'standard-webhooks' });
    expect(await verifyDelivery({ payload: `${body} `, headers, secret })).toMatchObject({ ok: false });
  });

  it('every secret secretProblem accepts is accepted by the reference library with the same key', () => {
    for (const secret of [VECTOR.secret, generateSecret(), `whsec_${btoa('x'.repeat(64))}`]) {
      expect(secretProblem(secret)).toBeUndefined();
      expect(() => new Webhook(secret)).not.toThrow();
    }
  });
});

describe('secrets', () => {
  it('generates whsec_ + base64 of 32 bytes', () => {
    const secret = generateSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(standardKeyBytes(secret)).toHaveLength(32);
    expect(generateSecret()).not.toBe(secret);
  });

  it('refuses secrets a Standard Webhooks verifier could read differently, saying why', () => {
    expect(secretProblem('whsec_hello-world-my-secret!!')).toMatch(/standard base64/);
    expect(secretProblem('my-own-secret-of-enough-length-123')).toMatch(/must start with "whsec_"/);
    expect(secretProblem(`whsec_${btoa('x'.repeat(16))}`)).toMatch(/16 bytes; it must be 24 to 64/);
    expect(secretProblem(`whsec_${btoa('x'.repeat(65))}`)).toMatch(/65 bytes/);
    expect(secretProblem(`whsec_${btoa('x'.repeat(24)).replace(/=+$/, '')}A`)).toMatch(/standard base64/);
    expect(secretProblem('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLa_w')).toMatch(/standard base64/);
  });

  it('keys older secrets the way both ends always did: forgiving base64 after whsec_, else UTF-8', () => {
    expect(standardKeyBytes('whsec_hello-world-my-secret!!')).toEqual(new TextEncoder().encode('whsec_hello-world-my-secret!!'));
    expect(standardKeyBytes('plain-secret-with-24-chars!')).toEqual(new TextEncoder().encode('plain-secret-with-24-chars!'));
    expect(standardKeyBytes('whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYX')).toEqual(Uint8Array.from({ length: 24 }, (_, i) => i));
  });
});

describe('rotation: several secrets', () => {
  it('signs with every active secret, newest first; X-Service-Signature uses the newest', async () => {
    const [current, previous] = [generateSecret(), generateSecret()];
    const body = '{"event":"record.created"}';
    const headers = await signDelivery({ payload: body, secrets: [current, previous], id: 'msg_rot', timestamp: nowSeconds() });
    const parts = headers['webhook-signature'].split(' ');
    expect(parts).toHaveLength(2);
    expect(parts.every((p) => p.startsWith('v1,'))).toBe(true);
    expect(headers['x-service-signature']).toBe(createHmac('sha256', current).update(body).digest('hex'));
    // A receiver that still has only the old secret, one that has the new one, and one with both.
    expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(current).verify(body, headers)).toEqual(JSON.parse(body));
    expect(await verifyDelivery({ payload: body, headers, secret: previous })).toMatchObject({ ok: true });
    expect(await verifyDelivery({ payload: body, headers, secret: [current, previous] })).toMatchObject({ ok: true });
    expect(await verifyDelivery({ payload: body, headers, secret: generateSecret() })).toMatchObject({ ok: false });
  });
});

describe('X-Service-Signature alone', () => {
  const secret = generateSecret();
  const body = '{"event":"record.created","timestamp":"2020-01-01T00:00:00.000Z","data":{}}';

  it('is refused by default: a header-stripped capture would otherwise verify forever', async () => {
    const full = await signDelivery({ payload: body, secrets: secret, id: 'msg_old', timestamp: 1_577_836_800 });
    // The capture is years old: its Standard Webhooks headers are refused for age...
    expect(await verifyDelivery({ payload: body, headers: full, secret })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/old/),
    });
    // ...and stripped of them, it is refused for lack of a timestamp.
    const stripped = { 'x-service-signature': full['x-service-signature'] };
    expect(await verifyDelivery({ payload: body, headers: stripped, secret })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/allowServiceSignatureOnly/),
    });
  });

  it('is accepted when the receiver opts in, and only with the right secret and body', async () => {
    const headers = { 'X-Service-Signature': createHmac('sha256', secret).update(body).digest('hex') };
    expect(await verifyDelivery({ payload: body, headers, secret, allowServiceSignatureOnly: true })).toEqual({
      ok: true,
      scheme: 'x-service-signature',
    });
    expect(await verifyDelivery({ payload: `${body}\n`, headers, secret, allowServiceSignatureOnly: true })).toMatchObject({ ok: false });
    expect(await verifyDelivery({ payload: body, headers, secret: generateSecret(), allowServiceSignatureOnly: true })).toMatchObject({
      ok: false,
    });
  });

  it('does not rescue a bad Standard Webhooks signature', async () => {
    const headers = {
      ...(await signDelivery({ payload: body, secrets: secret, id: 'msg_x', timestamp: nowSeconds() })),
      'webhook-signature': 'v1,AAAA',
    };
    expect(await verifyDelivery({ payload: body, headers, secret, allowServiceSignatureOnly: true })).toMatchObject({ ok: false });
  });
});

describe('malformed headers', () => {
  const secret = generateSecret();
  it('says what is missing or wrong', async () => {
    const body = '{}';
    const good = await signDelivery({ payload: body, secrets: secret, id: 'msg_1', timestamp: nowSeconds() });
    const cases: [Record<string, string>, RegExp][] = [
      [{}, /Missing signature headers/],
      [{ 'webhook-id': 'msg_1', 'webhook-signature': good['webhook-signature'] }, /Incomplete/],
      [{ ...good, 'webhook-timestamp': '12.5' }, /Unix time/],
      [{ ...good, 'webhook-signature': 'v2,abc' }, /no v1 signature/],
    ];
    for (const [headers, reason] of cases) {
      expect(await verifyDelivery({ payload: body, headers, secret })).toMatchObject({ ok: false, reason: expect.stringMatching(reason) });
    }
    expect(await verifyDelivery({ payload: body, headers: good, secret: [] })).toEqual({ ok: false, reason: 'No webhook secret given' });
    expect(await verifyDelivery({ payload: new TextEncoder().encode(body), headers: new Headers(good), secret })).toMatchObject({
      ok: true,
    });
  });
});

describe('headers as receivers hand them over', () => {
  it('reads any Headers-like object, and a webhook-signature header repeated on the way', async () => {
    const [current, previous] = [generateSecret(), generateSecret()];
    const body = '{"event":"record.created"}';
    const signed = await signDelivery({ payload: body, secrets: [previous, current], id: 'msg_h', timestamp: nowSeconds() });
    // Another Fetch implementation's Headers (not this realm's class): only `get` is relied on.
    const map = new Map(Object.entries(signed));
    const foreign = { get: (name: string) => map.get(name.toLowerCase()) ?? null };
    expect(await verifyDelivery({ payload: body, headers: foreign as unknown as Headers, secret: current })).toMatchObject({ ok: true });
    // The two signatures as two header lines: Node gives an array, Headers joins them with ", ".
    const [first, second] = signed['webhook-signature'].split(' ') as [string, string];
    const asArray = { ...signed, 'webhook-signature': [first, second] };
    const joined = new Headers({ ...signed, 'webhook-signature': first });
    joined.append('webhook-signature', second);
    for (const headers of [asArray, joined]) {
      for (const secret of [current, previous]) {
        expect(await verifyDelivery({ payload: body, headers, secret })).toMatchObject({ ok: true });
      }
    }
  });
});

describe('edges', () => {
  const at = (seconds: number) => new Date(seconds * 1000);
  const verifyVector = (o: { headers?: Record<string, string>; now?: Date; tolerance?: number; secret?: string | string[] }) =>
    verifyDelivery({
      payload: VECTOR.body,
      headers: o.headers ?? vectorHeaders,
      secret: o.secret ?? VECTOR.secret,
      now: o.now ?? vectorNow,
      ...(o.tolerance !== undefined ? { tolerance: o.tolerance } : {}),
    });

  it('accepts a timestamp exactly the tolerance away, either way, and names the tolerance it refuses by', async () => {
    expect(await verifyVector({ now: at(VECTOR.timestamp + 300) })).toMatchObject({ ok: true });
    expect(await verifyVector({ now: at(VECTOR.timestamp - 300) })).toMatchObject({ ok: true });
    expect(await verifyVector({ now: at(VECTOR.timestamp + 11), tolerance: 10 })).toEqual({
      ok: false,
      reason: 'webhook-timestamp is more than 10 s old (a replay, or clock skew)',
    });
    expect(await verifyVector({ now: at(VECTOR.timestamp - 11), tolerance: 10 })).toEqual({
      ok: false,
      reason: 'webhook-timestamp is more than 10 s in the future (clock skew)',
    });
  });

  it('ignores empty secrets in a list, and signs with none only by refusing', async () => {
    expect(await verifyVector({ secret: ['', VECTOR.secret] })).toMatchObject({ ok: true });
    expect(await verifyVector({ secret: '' })).toEqual({ ok: false, reason: 'No webhook secret given' });
    const signed = await signDelivery({ payload: VECTOR.body, secrets: ['', VECTOR.secret], id: VECTOR.id, timestamp: VECTOR.timestamp });
    expect(signed['webhook-signature']).toBe(VECTOR.signature);
    await expect(signDelivery({ payload: VECTOR.body, secrets: [], id: VECTOR.id, timestamp: VECTOR.timestamp })).rejects.toThrow(
      'signDelivery needs at least one secret',
    );
    await expect(signDelivery({ payload: VECTOR.body, secrets: '', id: VECTOR.id, timestamp: VECTOR.timestamp })).rejects.toThrow(
      'signDelivery needs at least one secret',
    );
  });

  it('wants all three Standard Webhooks headers once any of them is there', async () => {
    const incomplete = /^Incomplete Standard Webhooks headers/;
    const { 'webhook-signature': _s, ...noSignature } = vectorHeaders;
    const { 'webhook-id': _i, ...noId } = vectorHeaders;
    const cases: Record<string, string>[] = [
      noSignature,
      noId,
      { 'webhook-signature': VECTOR.signature },
      { 'webhook-timestamp': String(VECTOR.timestamp) },
    ];
    for (const headers of cases) {
      expect(await verifyVector({ headers }), JSON.stringify(headers)).toMatchObject({
        ok: false,
        reason: expect.stringMatching(incomplete),
      });
    }
  });

  it('reads v1 entries only, skipping empty ones and commas a joined header left', async () => {
    const withSignature = (signature: string) => ({ ...vectorHeaders, 'webhook-signature': signature });
    expect(await verifyVector({ headers: withSignature('v1,') })).toEqual({ ok: false, reason: 'webhook-signature has no v1 signature' });
    expect(await verifyVector({ headers: withSignature(`v1, ${VECTOR.signature},,`) })).toMatchObject({ ok: true });
  });

  it('checks X-Service-Signature alone, when allowed: trimmed, in either case of hex, anything else refused with its reason', async () => {
    const service = createHmac('sha256', VECTOR.secret).update(VECTOR.body).digest('hex');
    const alone = (value: string | undefined) =>
      verifyDelivery({
        payload: VECTOR.body,
        headers: value === undefined ? {} : { 'x-service-signature': value },
        secret: VECTOR.secret,
        allowServiceSignatureOnly: true,
      });
    expect(await alone(` ${service.toUpperCase()} `)).toEqual({ ok: true, scheme: 'x-service-signature' });
    expect(await alone(undefined)).toEqual({ ok: false, reason: 'Missing signature headers (webhook-signature or X-Service-Signature)' });
    for (const wrong of ['not hex', service.slice(1), `${service.slice(0, -2)}00`]) {
      expect(await alone(wrong), wrong).toEqual({ ok: false, reason: 'X-Service-Signature does not match the body and secret' });
    }
  });

  it('keys a secret without the whsec_ prefix by its UTF-8 bytes, even when part of it reads as base64', () => {
    const secret = 'abcdefAAECAwQFBgcICQoLDA0ODxAREhMUFRYX';
    expect(standardKeyBytes(secret)).toEqual(new TextEncoder().encode(secret));
  });

  it('verifies a body given as an ArrayBuffer', async () => {
    const buffer = new TextEncoder().encode(VECTOR.body).buffer;
    expect(await verifyDelivery({ payload: buffer, headers: vectorHeaders, secret: VECTOR.secret, now: vectorNow })).toMatchObject({
      ok: true,
    });
  });
});
