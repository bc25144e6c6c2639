import { type Payload, signDelivery, type VerifyDeliveryOptions, verifyDelivery, type WebhookHeaders } from '@merma/signing';
import { MermaError, WebhookVerificationError } from './core/errors.js';
import type { WebhookEvent } from './generated/api-types.js';

/**
 * Verifying the webhooks Merma sends, with the same signing code the API signs with
 * (`@merma/signing`). Web Crypto only, so it runs in Node, Deno, Bun, browsers and edge runtimes.
 *
 * Every delivery carries the Standard Webhooks headers `webhook-id`, `webhook-timestamp` and
 * `webhook-signature` (any Standard Webhooks library verifies them too), plus the contract's
 * `X-Service-Signature` (hex HMAC of the body, no timestamp). `verifyWebhook` requires the
 * timestamped Standard Webhooks signature by default, so a captured delivery cannot be replayed
 * later; `allowServiceSignatureOnly: true` also accepts a body signed only with
 * `X-Service-Signature`, for receivers of the bare contract scheme that understand the risk.
 *
 * It refuses only what is unsigned, badly signed, outside the tolerance or not JSON. Any
 * correctly signed JSON body is returned as sent, including event names this version does not
 * know yet: handle those in the `default:` branch of a switch on `event`.
 *
 * Verify the RAW body, before any JSON parsing: re-serialised JSON does not match the signature.
 */
export type { WebhookHeaders };

/**
 * `payload` (the raw body), `headers`, `secret` (one, or a list during a rotation), and optionally
 * `tolerance` (seconds, default 300), `now` (for tests) and `allowServiceSignatureOnly`.
 */
export type VerifyWebhookOptions = VerifyDeliveryOptions;

/** A delivery whose `event` this version of the SDK does not know (added to the API later). */
export type UnknownWebhookEvent = { event: string; timestamp?: string; data?: unknown; [key: string]: unknown };

/** Checks a delivery and returns its parsed body; throws WebhookVerificationError saying why not. */
export async function verifyWebhook(options: VerifyWebhookOptions): Promise<WebhookEvent> {
  const result = await verifyDelivery(options);
  if (!result.ok) throw new WebhookVerificationError(result.reason);
  const text = typeof options.payload === 'string' ? options.payload : new TextDecoder().decode(options.payload);
  try {
    return JSON.parse(text) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('The body is correctly signed but is not JSON');
  }
}

/**
 * The largest timestamp taken as seconds: 10^11 s is the year 5138, while any millisecond time
 * since March 1973 is larger.
 */
const MAX_SECONDS = 1e11;

/**
 * Signs a payload as the API does and returns a delivery's headers, for receivers' tests.
 * `secret` may list several secrets (newest first), as during a rotation.
 */
export function signWebhook(options: {
  payload: Payload;
  secret: string | readonly string[];
  /** Default: a random `msg_…` id. */
  id?: string | undefined;
  /**
   * Unix time in whole seconds, as Standard Webhooks' `webhook-timestamp` (default now). A value in
   * milliseconds (`Date.now()`), a fraction or a negative number is refused with a MermaError: a
   * receiver would read a millisecond timestamp as tens of thousands of years ahead and refuse it.
   */
  timestamp?: number | undefined;
}): Promise<Record<string, string>> {
  const { timestamp } = options;
  if (timestamp !== undefined) {
    if (!Number.isInteger(timestamp) || timestamp < 0) {
      return Promise.reject(new MermaError(`signWebhook: timestamp must be whole Unix seconds, got ${timestamp}`));
    }
    if (timestamp > MAX_SECONDS) {
      return Promise.reject(
        new MermaError(
          `signWebhook: timestamp ${timestamp} looks like milliseconds; Standard Webhooks timestamps are Unix seconds (Math.floor(${timestamp} / 1000) = ${Math.floor(timestamp / 1000)})`,
        ),
      );
    }
  }
  return signDelivery({
    payload: options.payload,
    secrets: options.secret,
    id: options.id ?? `msg_${globalThis.crypto.randomUUID().replaceAll('-', '')}`,
    timestamp: options.timestamp ?? Math.floor(Date.now() / 1000),
  });
}
