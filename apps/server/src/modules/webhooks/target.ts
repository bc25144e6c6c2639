import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { validationError } from '../../errors.js';

/**
 * Where webhooks may be sent (SSRF guard). In production only HTTPS. Addresses that reach inside
 * our own network are refused — private, loopback, link-local (which includes cloud metadata at
 * 169.254.169.254), carrier-grade NAT, unspecified, unique-local and IPv4-mapped forms of them —
 * after resolving the host name, so a DNS name pointing inside is refused too. The check runs at
 * creation and must run again at delivery time (DNS can change). WEBHOOKS_ALLOW_PRIVATE=true lifts
 * the address check for development and tests.
 */
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

export async function assertDeliverableUrl(raw: string, options: { production: boolean; allowPrivate: boolean }): Promise<URL> {
  assertNoWhitespace(raw);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw validationError('url is not a valid URL', [{ path: 'url', message: 'invalid URL' }]);
  }
  if (url.protocol !== 'https:' && (options.production || url.protocol !== 'http:')) {
    throw validationError('Webhook URLs must use HTTPS', [{ path: 'url', message: 'HTTPS required' }]);
  }
  if (url.username || url.password)
    throw validationError('Webhook URLs may not carry credentials', [{ path: 'url', message: 'credentials in URL' }]);
  if (options.allowPrivate) return url;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
    } catch {
      throw validationError(`The host ${host} cannot be resolved`, [{ path: 'url', message: 'host not found' }]);
    }
  }
  if (addresses.length === 0 || addresses.some(isInternalAddress)) {
    throw validationError('Webhook URLs may not point to private, loopback or link-local addresses', [
      { path: 'url', message: 'internal address refused' },
    ]);
  }
  return url;
}
