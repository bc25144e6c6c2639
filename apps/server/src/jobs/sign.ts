import { createHmac } from 'node:crypto';

/**
 * The signature headers of a delivery, over the exact bytes of `body`:
 * - `X-Service-Signature`: hex HMAC-SHA256 of the body keyed with the secret as given (SPEC);
 * - `webhook-id`, `webhook-timestamp`, `webhook-signature` (Standard Webhooks v1): base64
 *   HMAC-SHA256 of `id.timestamp.body`, keyed with the base64-decoded bytes after `whsec_` (or the
 *   secret's UTF-8 bytes when a customer's own secret has no such prefix), as `v1,<signature>`.
 * `@merma/sdk`'s verifyWebhook checks both; the tests verify these headers with it.
 */
export function signatureHeaders(secret: string, id: string, timestamp: Date, body: string): Record<string, string> {
  const seconds = Math.floor(timestamp.getTime() / 1000).toString();
  const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
  return {
    'x-service-signature': createHmac('sha256', secret).update(body, 'utf8').digest('hex'),
    'webhook-id': id,
    'webhook-timestamp': seconds,
    'webhook-signature': `v1,${createHmac('sha256', key).update(`${id}.${seconds}.${body}`, 'utf8').digest('base64')}`,
  };
}
