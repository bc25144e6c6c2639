/**
 * How Merma signs webhook deliveries, once, for the server that signs and the SDK that verifies.
 * Web Crypto only (no Node imports), so it runs in Node, Deno, Bun, browsers and edge runtimes.
 *
 * Every delivery carries two schemes over the exact bytes of the body:
 * - Standard Webhooks v1 (https://www.standardwebhooks.com/): `webhook-id`, `webhook-timestamp`
 *   (Unix seconds) and `webhook-signature`, the space-separated list of `v1,<base64 HMAC-SHA256 of
 *   "id.timestamp.body">`, one per active secret (two while a rotated secret's grace period runs,
 *   the newest first). The key is the base64-decoded part of a `whsec_` secret, as the reference
 *   libraries derive it, so `standardwebhooks` and Svix verify our deliveries unchanged.
 * - `X-Service-Signature` (the API contract's scheme): hex HMAC-SHA256 of the body keyed with the
 *   UTF-8 bytes of the newest secret. It has no timestamp, so it cannot stop a replay; verifiers
 *   accept it alone only when asked to.
 *
 * Secrets: the API generates `whsec_` + base64 of 32 random bytes, and accepts a customer's own
 * secret only when every Standard Webhooks verifier can use it: `whsec_` + padded base64 of 24 to
 * 64 bytes (`secretProblem`). Subscriptions created before that rule may hold other secrets; for
 * them the key is the forgiving base64 decoding (what `atob` accepts) of the part after `whsec_`,
 * or else the secret's UTF-8 bytes. Both ends use this one function, so they always agree.
 */

export const SECRET_PREFIX = 'whsec_';
export const SECRET_MIN_BYTES = 24;
export const SECRET_MAX_BYTES = 64;
/** Default largest distance, in seconds, between `webhook-timestamp` and the verifier's clock. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;
export type Payload = string | Uint8Array | ArrayBuffer;

/** The signature headers of one delivery. */
export type SignatureHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
  'x-service-signature': string;
};

const encoder = new TextEncoder();
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function bytesOf(payload: Payload): Uint8Array<ArrayBuffer> {
  if (typeof payload === 'string') return encoder.encode(payload);
  return new Uint8Array(payload instanceof ArrayBuffer ? payload.slice(0) : payload);
}

function base64ToBytes(b64: string): Uint8Array<ArrayBuffer> | undefined {
  let bin: string;
  try {
    bin = atob(b64);
  } catch {
    return undefined;
  }
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function bytesToBase64(bytes: Uint8Array): string {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const b of bytes) hex += b.toString(16).padStart(2, '0');
  return hex;
}

function hexToBytes(hex: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(hex)) return undefined;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/**
 * Why `secret` cannot be a subscription's signing secret, or undefined when it can: it must be
 * `whsec_` followed by padded standard base64 of 24 to 64 bytes, which every Standard Webhooks
 * library decodes the same way.
 */
export function secretProblem(secret: string): string | undefined {
  if (!secret.startsWith(SECRET_PREFIX)) {
    return `must start with "${SECRET_PREFIX}" followed by base64 of ${SECRET_MIN_BYTES} to ${SECRET_MAX_BYTES} random bytes`;
  }
  const b64 = secret.slice(SECRET_PREFIX.length);
  if (!STRICT_BASE64.test(b64)) {
    return `the part after "${SECRET_PREFIX}" must be standard base64 (A-Z, a-z, 0-9, + and /, padded with =)`;
  }
  const length = (base64ToBytes(b64) as Uint8Array).length;
  if (length < SECRET_MIN_BYTES || length > SECRET_MAX_BYTES) {
    return `the part after "${SECRET_PREFIX}" decodes to ${length} bytes; it must be ${SECRET_MIN_BYTES} to ${SECRET_MAX_BYTES}`;
  }
  return undefined;
}

/** A new signing secret: `whsec_` + base64 of 32 random bytes (256 bits). */
export function generateSecret(): string {
  return SECRET_PREFIX + bytesToBase64(globalThis.crypto.getRandomValues(new Uint8Array(32)));
}

/** The Standard Webhooks HMAC key of a secret (see the module comment for older secrets). */
export function standardKeyBytes(secret: string): Uint8Array<ArrayBuffer> {
  if (secret.startsWith(SECRET_PREFIX)) {
    const decoded = base64ToBytes(secret.slice(SECRET_PREFIX.length));
    if (decoded?.length) return decoded;
  }
  return encoder.encode(secret);
}

function hmacKey(bytes: Uint8Array<ArrayBuffer>, usage: 'sign' | 'verify') {
  return globalThis.crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, [usage]);
}

async function hmac(key: Uint8Array<ArrayBuffer>, data: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  return new Uint8Array(await globalThis.crypto.subtle.sign('HMAC', await hmacKey(key, 'sign'), data));
}

function asList(secrets: string | readonly string[]): string[] {
  return (typeof secrets === 'string' ? [secrets] : [...secrets]).filter((s) => s.length > 0);
}

/**
 * Signs one delivery. `secrets` lists the subscription's active secrets, newest first: each gives
 * one `v1,` entry of `webhook-signature`; `X-Service-Signature` uses the newest.
 */
export async function signDelivery(options: {
  payload: Payload;
  secrets: string | readonly string[];
  id: string;
  /** Unix seconds. */
  timestamp: number;
}): Promise<SignatureHeaders> {
  const secrets = asList(options.secrets);
  const newest = secrets[0];
  if (newest === undefined) throw new Error('signDelivery needs at least one secret');
  const body = bytesOf(options.payload);
  const timestamp = String(Math.floor(options.timestamp));
  const signed = concat(encoder.encode(`${options.id}.${timestamp}.`), body);
  const signatures = await Promise.all(secrets.map(async (s) => `v1,${bytesToBase64(await hmac(standardKeyBytes(s), signed))}`));
  return {
    'webhook-id': options.id,
    'webhook-timestamp': timestamp,
    'webhook-signature': signatures.join(' '),
    'x-service-signature': toHex(await hmac(encoder.encode(newest), body)),
  };
}

export type VerifyDeliveryOptions = {
  /** The raw body exactly as received (string, Buffer/Uint8Array or ArrayBuffer), before any JSON parsing. */
  payload: Payload;
  headers: WebhookHeaders;
  /** The subscription's secret, or several (while a rotated secret's grace period runs). */
  secret: string | readonly string[];
  /** Largest accepted distance between webhook-timestamp and now, in seconds (default 300; `undefined` too). */
  tolerance?: number | undefined;
  /** The current time (default, or `undefined`: the clock). */
  now?: Date | undefined;
  /**
   * Accept a delivery that carries only `X-Service-Signature`. That header has no timestamp, so a
   * captured delivery would verify forever: leave this off unless your sender cannot send the
   * Standard Webhooks headers. Default false. Ignored when Standard Webhooks headers are present.
   */
  allowServiceSignatureOnly?: boolean | undefined;
};

export type VerifyResult = { ok: true; scheme: 'standard-webhooks' | 'x-service-signature' } | { ok: false; reason: string };

/**
 * A header from a Fetch `Headers` (any implementation: undici's, node-fetch's, another realm's) or
 * a plain object such as Node's `req.headers` (names in any case; repeated values joined).
 */
export function header(headers: WebhookHeaders, name: string): string | undefined {
  const get = (headers as { get?: unknown }).get;
  if (typeof get === 'function') return (get.call(headers, name) as string | null) ?? undefined;
  const wanted = name.toLowerCase();
  for (const [k, v] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (k.toLowerCase() === wanted) return Array.isArray(v) ? v.join(', ') : v;
  }
  return undefined;
}

/**
 * Checks a delivery's signature. With Standard Webhooks headers (always sent by the API) the
 * timestamp must be within `tolerance` and one `v1` signature must match one secret; then
 * `X-Service-Signature` is not consulted (it is keyed with the newest secret only, so it would
 * refuse a receiver still holding the previous one during a rotation). Without them, the delivery
 * is refused unless `allowServiceSignatureOnly` is set and `X-Service-Signature` matches.
 * Comparisons are constant-time (`crypto.subtle.verify`).
 */
export async function verifyDelivery(options: VerifyDeliveryOptions): Promise<VerifyResult> {
  const secrets = asList(options.secret);
  if (secrets.length === 0) return { ok: false, reason: 'No webhook secret given' };
  const body = bytesOf(options.payload);
  const id = header(options.headers, 'webhook-id');
  const timestamp = header(options.headers, 'webhook-timestamp');
  const signature = header(options.headers, 'webhook-signature');

  if (id === undefined && timestamp === undefined && signature === undefined) {
    const service = header(options.headers, 'x-service-signature');
    if (!options.allowServiceSignatureOnly) {
      return {
        ok: false,
        reason: service
          ? 'Missing webhook-id, webhook-timestamp and webhook-signature: a delivery signed only with X-Service-Signature carries no timestamp and could be a replay (pass allowServiceSignatureOnly to accept it)'
          : 'Missing signature headers (webhook-id, webhook-timestamp, webhook-signature)',
      };
    }
    if (!service) return { ok: false, reason: 'Missing signature headers (webhook-signature or X-Service-Signature)' };
    const expected = hexToBytes(service.trim());
    if (expected) {
      for (const secret of secrets) {
        const key = await hmacKey(encoder.encode(secret), 'verify');
        if (await globalThis.crypto.subtle.verify('HMAC', key, expected, body)) return { ok: true, scheme: 'x-service-signature' };
      }
    }
    return { ok: false, reason: 'X-Service-Signature does not match the body and secret' };
  }

  if (!id || !timestamp || !signature) {
    return {
      ok: false,
      reason: 'Incomplete Standard Webhooks headers: webhook-id, webhook-timestamp and webhook-signature are all needed',
    };
  }
  if (!/^\d{1,15}$/.test(timestamp.trim())) return { ok: false, reason: 'webhook-timestamp is not a Unix time in seconds' };
  const tolerance = options.tolerance ?? DEFAULT_TOLERANCE_SECONDS;
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const seconds = Number(timestamp.trim());
  if (now - seconds > tolerance)
    return { ok: false, reason: `webhook-timestamp is more than ${tolerance} s old (a replay, or clock skew)` };
  if (seconds - now > tolerance) return { ok: false, reason: `webhook-timestamp is more than ${tolerance} s in the future (clock skew)` };

  const candidates: Uint8Array<ArrayBuffer>[] = [];
  // Space-separated `v1,<base64>` entries; a header repeated on the way arrives joined with ", ",
  // so a comma ending an entry is a separator, not part of it (base64 has no commas).
  for (const entry of signature.split(' ').map((e) => e.replace(/,+$/, ''))) {
    const comma = entry.indexOf(',');
    if (comma < 0 || entry.slice(0, comma) !== 'v1') continue;
    const bytes = base64ToBytes(entry.slice(comma + 1));
    if (bytes?.length) candidates.push(bytes);
  }
  if (candidates.length === 0) return { ok: false, reason: 'webhook-signature has no v1 signature' };
  const signed = concat(encoder.encode(`${id}.${timestamp}.`), body);
  for (const secret of secrets) {
    const key = await hmacKey(standardKeyBytes(secret), 'verify');
    for (const candidate of candidates) {
      if (await globalThis.crypto.subtle.verify('HMAC', key, candidate, signed)) return { ok: true, scheme: 'standard-webhooks' };
    }
  }
  return { ok: false, reason: 'webhook-signature does not match the body, id, timestamp and secret' };
}
