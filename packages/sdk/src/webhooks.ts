import { WebhookEvent } from '@merma/schema';
import { WebhookVerificationError } from './core/errors.js';

/**
 * Verifying the webhooks Merma sends. Web Crypto only, so it runs in Node, Deno, Bun, browsers and
 * edge runtimes.
 *
 * Each delivery carries:
 * - `X-Service-Signature`: hex HMAC-SHA256 of the exact raw body, keyed with the UTF-8 bytes of the
 *   subscription's secret string (as the API contract states);
 * - the Standard Webhooks headers `webhook-id`, `webhook-timestamp` (Unix seconds) and
 *   `webhook-signature` (`v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, space-separated when
 *   several). As the Standard Webhooks specification says, a `whsec_` secret is keyed with the
 *   base64-decoded bytes after the prefix (so standard libraries verify it too); any other secret
 *   with its UTF-8 bytes.
 *
 * `verifyWebhook` checks X-Service-Signature, and the Standard Webhooks signature and timestamp
 * (against replays) when those headers are present. Verify the RAW body, before any JSON parsing:
 * re-serialised JSON does not match the signature.
 */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export type VerifyWebhookOptions = {
  payload: string | Uint8Array;
  headers: WebhookHeaders;
  secret: string;
  /** Largest accepted distance between webhook-timestamp and now, in seconds (default 300). */
  tolerance?: number;
  /** For tests: the current time. */
  now?: Date;
};

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const wanted = name.toLowerCase();
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() === wanted) return Array.isArray(v) ? v[0] : v;
  }
  return undefined;
}

function base64ToBytes(b64: string): Uint8Array<ArrayBuffer> | undefined {
  try {
    const bin = atob(b64);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  } catch {
    return undefined;
  }
}

function bytesToBase64(bytes: Uint8Array): string {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

function hexToBytes(hex: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(hex)) return undefined;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

const toHex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');

function standardKeyBytes(secret: string): Uint8Array<ArrayBuffer> {
  if (secret.startsWith('whsec_')) {
    const decoded = base64ToBytes(secret.slice('whsec_'.length));
    if (decoded?.length) return decoded;
  }
  return encoder.encode(secret);
}

function hmacKey(bytes: Uint8Array<ArrayBuffer>, usage: 'sign' | 'verify'): Promise<CryptoKey> {
  return globalThis.crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, [usage]);
}

function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Checks a delivery and returns its typed event; throws WebhookVerificationError saying why not. */
export async function verifyWebhook(options: VerifyWebhookOptions): Promise<WebhookEvent> {
  const { headers, secret } = options;
  if (!secret) throw new WebhookVerificationError('No webhook secret given');
  const body = typeof options.payload === 'string' ? encoder.encode(options.payload) : new Uint8Array(options.payload);
  const serviceSignature = header(headers, 'x-service-signature');
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const standardSignature = header(headers, 'webhook-signature');
  if (!serviceSignature && !standardSignature) {
    throw new WebhookVerificationError('Missing signature headers (X-Service-Signature or webhook-signature)');
  }

  if (serviceSignature) {
    const expected = hexToBytes(serviceSignature.trim());
    const key = await hmacKey(encoder.encode(secret), 'verify');
    // crypto.subtle.verify compares in constant time.
    if (!expected || !(await globalThis.crypto.subtle.verify('HMAC', key, expected, body))) {
      throw new WebhookVerificationError('X-Service-Signature does not match the body and secret');
    }
  }

  if (standardSignature || id || timestamp) {
    if (!id || !timestamp || !standardSignature) {
      throw new WebhookVerificationError('Incomplete Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature)');
    }
    const seconds = Number(timestamp);
    if (!Number.isInteger(seconds)) throw new WebhookVerificationError('webhook-timestamp is not a Unix time in seconds');
    const tolerance = options.tolerance ?? 300;
    const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
    if (Math.abs(now - seconds) > tolerance) {
      throw new WebhookVerificationError(`webhook-timestamp is outside the ${tolerance} s tolerance (replayed or clock skew)`);
    }
    const key = await hmacKey(standardKeyBytes(secret), 'verify');
    const signed = concat(encoder.encode(`${id}.${timestamp}.`), body);
    let ok = false;
    for (const candidate of standardSignature.split(' ')) {
      const [version, value] = candidate.split(',', 2);
      const bytes = version === 'v1' && value ? base64ToBytes(value) : undefined;
      if (bytes && (await globalThis.crypto.subtle.verify('HMAC', key, bytes, signed))) ok = true;
    }
    if (!ok) throw new WebhookVerificationError('webhook-signature does not match the body, id, timestamp and secret');
  }

  let json: unknown;
  try {
    json = JSON.parse(decoder.decode(body));
  } catch {
    throw new WebhookVerificationError('The body is not JSON');
  }
  const event = WebhookEvent.safeParse(json);
  if (!event.success) throw new WebhookVerificationError(`Unknown event shape: ${event.error.issues[0]?.message ?? 'invalid'}`);
  return event.data;
}

/**
 * Signs a payload as the API does, returning the headers of a delivery. For receivers' tests and
 * for the API itself.
 */
export async function signWebhook(options: {
  payload: string | Uint8Array;
  secret: string;
  id?: string;
  timestamp?: number;
}): Promise<Record<string, string>> {
  const body = typeof options.payload === 'string' ? encoder.encode(options.payload) : new Uint8Array(options.payload);
  const id = options.id ?? `msg_${globalThis.crypto.randomUUID().replaceAll('-', '')}`;
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const service = await globalThis.crypto.subtle.sign('HMAC', await hmacKey(encoder.encode(options.secret), 'sign'), body);
  const standard = await globalThis.crypto.subtle.sign(
    'HMAC',
    await hmacKey(standardKeyBytes(options.secret), 'sign'),
    concat(encoder.encode(`${id}.${timestamp}.`), body),
  );
  return {
    'x-service-signature': toHex(new Uint8Array(service)),
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': `v1,${bytesToBase64(new Uint8Array(standard))}`,
  };
}
