import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import type { DetailCode, ErrorDetail } from '@merma/schema';
import { validationError } from '../../errors.js';

/**
 * Where webhooks may be sent (SSRF guard), checked in two places with the same rules: when a
 * subscription is created or changed (`assertDeliverableUrl`, with DNS; the API and the dashboard
 * share it through the webhooks service) and at every delivery (send.ts: `checkTarget`, then a
 * lookup that refuses internal addresses as the socket connects, so the address checked is the one
 * used). In production only HTTPS. Addresses that reach inside our own network are refused —
 * private, loopback, link-local (which includes cloud metadata at 169.254.169.254), carrier-grade
 * NAT, unspecified, multicast and reserved IPv4; loopback, unspecified, unique-local, link-local,
 * site-local and multicast IPv6, and the IPv6 ranges nothing routes to (discard-only, benchmarking,
 * documentation) — after resolving the host name, so a DNS name pointing inside is
 * refused too. WEBHOOKS_ALLOW_PRIVATE=true lifts the address check for development and tests.
 *
 * IPv6 addresses that carry an IPv4 address (`isInternalAddress`): IPv4-mapped `::ffff:0:0/96` and
 * NAT64's `64:ff9b::/96` are judged by the IPv4 address they carry; the other ranges that carry one
 * are refused whole (which, and why: docs/decisions/0003-ipv6-addresses-that-carry-ipv4.md).
 */
export type TargetPolicy = { production: boolean; allowPrivate: boolean };

const blockedV4 = new BlockList();
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
  blockedV4.addSubnet(net, prefix, 'ipv4');
}

/**
 * IPv6 ranges refused whatever they carry. BlockList also applies the IPv4 rules above to an
 * IPv4-mapped address (`::ffff:a.b.c.d`, in either spelling), so those need no rule here.
 */
const blockedV6 = new BlockList();
for (const [net, prefix] of [
  ['::', 96], // unspecified, loopback and IPv4-compatible
  ['::ffff:0:0:0', 96], // IPv4-translated (SIIT)
  ['100::', 64], // discard-only (RFC 6666): routed nowhere, by design
  ['2001:2::', 48], // benchmarking (RFC 5180), as 198.18.0.0/15 for IPv4
  ['2001:db8::', 32], // documentation (RFC 3849)
  ['3fff::', 20], // documentation (RFC 9637)
  ['64:ff9b::', 32], // NAT64 outside the well-known /96, which isInternalAddress judges first
  ['2001::', 32], // Teredo
  ['2002::', 16], // 6to4
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  blockedV6.addSubnet(net, prefix, 'ipv6');
}

/** The eight 16-bit groups of a valid IPv6 address without zone (a trailing dotted IPv4 allowed). */
function ipv6Groups(address: string): number[] {
  let text = address;
  const tail: number[] = [];
  const dotted = /:(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    tail.push((a << 8) | b, (c << 8) | d);
    text = text.slice(0, dotted.index + 1);
    if (!text.endsWith('::')) text = text.slice(0, -1);
  }
  const [head = '', rest] = text.split('::');
  const words = (part: string) => (part ? part.split(':').map((g) => Number.parseInt(g, 16)) : []);
  const left = words(head);
  const right = [...words(rest ?? ''), ...tail];
  const zeros = rest === undefined ? [] : new Array<number>(8 - left.length - right.length).fill(0);
  return [...left, ...zeros, ...right];
}

/** The IPv4 address in the low 32 bits of NAT64's well-known prefix `64:ff9b::/96`, if it is one. */
function nat64Embedded(address: string): string | null {
  const g = ipv6Groups(address);
  if (g[0] !== 0x64 || g[1] !== 0xff9b || g.slice(2, 6).some((w) => w !== 0)) return null;
  const [hi = 0, lo = 0] = g.slice(6);
  return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
}

/** Whether a webhook may not connect to `address` (an IP literal; anything else counts as internal). */
export function isInternalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blockedV4.check(address, 'ipv4');
  if (family !== 6) return true;
  const bare = address.replace(/%.*$/, '');
  const nat64 = nat64Embedded(bare);
  if (nat64 !== null) return blockedV4.check(nat64, 'ipv4');
  return blockedV6.check(bare, 'ipv6') || blockedV4.check(bare, 'ipv6');
}

/**
 * URL parsers (the WHATWG one, and zod's check before it) silently drop tabs and line breaks and
 * trim spaces: a URL carrying whitespace or control characters is refused, as it was given, instead
 * of storing another URL than the customer's.
 */
export function assertNoWhitespace(raw: string): void {
  if (/[\s\u0000-\u001f\u007f]/.test(raw)) {
    throw validationError('url may not contain whitespace or control characters', [
      { path: 'url', message: 'whitespace or control character', code: 'url_whitespace' },
    ]);
  }
}

/**
 * Why a URL is refused, as the API explains it: the message, and in `details` the short reason with
 * its code (and values) for clients that word it themselves (@merma/schema's DETAIL_CODES).
 */
export type Refusal = { message: string; reason: string; code: DetailCode; params?: ErrorDetail['params'] };

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
    return { refused: { message: 'url is not a valid URL', reason: 'invalid URL', code: 'url_invalid' } };
  }
  if (url.protocol !== 'https:' && (policy.production || url.protocol !== 'http:')) {
    return { refused: { message: 'Webhook URLs must use HTTPS', reason: 'HTTPS required', code: 'https_required' } };
  }
  if (url.username || url.password) {
    return { refused: { message: 'Webhook URLs may not carry credentials', reason: 'credentials in URL', code: 'url_credentials' } };
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!policy.allowPrivate && isIP(host) && isInternalAddress(host)) return { refused: internal(policy) };
  return { url, host };
}

const INTERNAL: Refusal = {
  message: 'Webhook URLs may not point to private, loopback or link-local addresses',
  reason: 'internal address refused',
  code: 'internal_address',
};

/**
 * Outside production the refusal says how to deliver to this machine or a local network (a
 * receiver under development): production refuses such addresses whatever is set.
 */
const internal = (policy: TargetPolicy): Refusal =>
  policy.production
    ? INTERNAL
    : {
        ...INTERNAL,
        message: `${INTERNAL.message}; outside production, set WEBHOOKS_ALLOW_PRIVATE=true to deliver to this machine or your local network`,
        // The setting that allows it, for a client that says so in its own words.
        params: { setting: 'WEBHOOKS_ALLOW_PRIVATE' },
      };

const refuse = (r: Refusal) =>
  validationError(r.message, [{ path: 'url', message: r.reason, code: r.code, ...(r.params ? { params: r.params } : {}) }]);

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
    throw validationError(`The host ${host} cannot be resolved`, [
      { path: 'url', message: 'host not found', code: 'host_not_found', params: { host } },
    ]);
  }
  if (addresses.length === 0 || addresses.some(isInternalAddress)) throw refuse(internal(policy));
  return url;
}
