import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header Square signs notifications with (https://developer.squareup.com/docs/webhooks/step3validate). */
export const SQUARE_SIGNATURE_HEADER = 'x-square-hmacsha256-signature';

/**
 * Whether `signature` (the header's value) is Square's signature of this notification under one
 * of `keys`: base64 of HMAC-SHA256, keyed with the subscription's signature key, over the
 * notification URL exactly as configured in the subscription followed by the raw body. Compared
 * as bytes in constant time; a header that is not 32 bytes of base64 matches nothing.
 */
export function squareSignatureMatches(
  keys: readonly string[],
  notificationUrl: string,
  rawBody: string,
  signature: string | undefined,
): boolean {
  if (!signature || !/^[A-Za-z0-9+/]{43}=$/.test(signature)) return false;
  const given = Buffer.from(signature, 'base64');
  let matched = false;
  for (const key of keys) {
    const expected = createHmac('sha256', key)
      .update(notificationUrl + rawBody)
      .digest();
    // Every key is tried, so the time taken does not say which one matched.
    if (timingSafeEqual(expected, given)) matched = true;
  }
  return matched;
}
