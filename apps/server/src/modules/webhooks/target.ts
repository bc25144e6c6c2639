import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { validationError } from '../../errors.js';

/**
 * Where webhooks may be sent (SSRF guard), checked in two places with the same rules: when a
 * subscription is created or changed (`assertDeliverableUrl`, with DNS) and at every delivery
 * (send.ts: `checkTarget`, then a lookup that refuses internal addresses as the socket connects). In production only HTTPS. Addresses that reach inside
 * our own network are refused — private, loopback, link-local (which includes cloud metadata at
 * 169.254.169.254), carrier-grade NAT, unspecified, unique-local and IPv4-mapped forms of them —
 * after resolving the host name, so a DNS name pointing inside is refused too. The check runs at
 * creation and must run again at delivery time (DNS can change). WEBHOOKS_ALLOW_PRIVATE=true lifts
 * the address check for development and tests.
 */
export type TargetPolicy = { production: boolean; allowPrivate: boolean };

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

export function isInternalAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return blocked.check(mapped[1], 'ipv4');
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) return blocked.check(address, 'ipv6');
  return true;
}

/**
 * URL parsers (the WHATWG one, and zod's check before it) silently drop tabs and line breaks and
 * trim spaces: a URL carrying whitespace or control characters is refused, as it was given, instead
 * of storing another URL than the customer's.
 */
export function assertNoWhitespace(raw: string): void {
  if (/[\s\u0000-\u001f\u007f]/.test(raw)) {
    throw validationError('url may not contain whitespace or control characters', [
      { path: 'url', message: 'whitespace or control character' },
    ]);
  }
}

/** Why a URL is refused, as the API explains it: the message and the short reason in `details`. */
export type Refusal = { message: string; reason: string };

/**
 * The checks that need no DNS: a parsable URL, HTTPS (plain HTTP only outside production), no
 * credentials, and — unless the policy allows private targets — no literal internal address.
 * Returns the URL and the host to resolve, or the refusal.
 */
export function checkTarget(raw: string, policy: TargetPolicy): { url: URL; host: string } | { refused: Refusal } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { refused: { message: 'url is not a valid URL', reason: 'invalid URL' } };
  }
  if (url.protocol !== 'https:' && (policy.production || url.protocol !== 'http:')) {
    return { refused: { message: 'Webhook URLs must use HTTPS', reason: 'HTTPS required' } };
  }
  if (url.username || url.password) {
    return { refused: { message: 'Webhook URLs may not carry credentials', reason: 'credentials in URL' } };
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!policy.allowPrivate && isIP(host) && isInternalAddress(host)) return { refused: INTERNAL };
  return { url, host };
}

const INTERNAL: Refusal = {
  message: 'Webhook URLs may not point to private, loopback or link-local addresses',
  reason: 'internal address refused',
};

const refuse = (r: Refusal) => validationError(r.message, [{ path: 'url', message: r.reason }]);

/** The check at creation: `checkTarget`, then every address the host resolves to must be public. */
export async function assertDeliverableUrl(raw: string, policy: TargetPolicy): Promise<URL> {
  assertNoWhitespace(raw);
  const checked = checkTarget(raw, policy);
  if ('refused' in checked) throw refuse(checked.refused);
  const { url, host } = checked;
  if (policy.allowPrivate || isIP(host)) return url;
  let addresses: string[];
  try {
    addresses = (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    throw validationError(`The host ${host} cannot be resolved`, [{ path: 'url', message: 'host not found' }]);
  }
  if (addresses.length === 0 || addresses.some(isInternalAddress)) throw refuse(INTERNAL);
  return url;
}
