import { type LookupAddress, lookup } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { inSpan } from '../../tracing/spans.js';
import { checkTarget, isInternalAddress, type TargetPolicy } from './target.js';

/** Where a delivery may go (target.ts) and how long its receiver has to answer. */
export type SendPolicy = TargetPolicy & { timeoutMs: number };

/**
 * Connections kept alive between deliveries to the same receiver (a socket is only ever opened
 * through the guarded lookup below, so a reused one was checked when it connected).
 */
export type Agents = { http: http.Agent; https: https.Agent; destroy(): void };
export function createAgents(): Agents {
  const options = { keepAlive: true, keepAliveMsecs: 1000, maxSockets: 16, maxFreeSockets: 4, timeout: 30_000 };
  const agents = { http: new http.Agent(options), https: new https.Agent(options) };
  return {
    ...agents,
    destroy() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
export type SendResult = { status: number | null; error: string | null; durationMs: number };
/** What a delivery keeps of the answer: its first bytes as text, and whether there was more. */
export type ResponseExcerpt = { text: string; truncated: boolean };
export type DeliveryResult = SendResult & { response: ResponseExcerpt | null };

class RefusedAddress extends Error {
  code = 'EREFUSEDADDRESS';
}

/**
 * A DNS lookup that refuses internal addresses. It runs when the socket connects, so the address
 * checked is the address used: a name re-pointed inside our network after the subscription was
 * accepted (DNS rebinding) is refused at delivery time.
 */
function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (err, found) => {
      if (err) return callback(err, '', 0);
      const addresses = found as unknown as LookupAddress[];
      if (!allowPrivate && (addresses.length === 0 || addresses.some((a) => isInternalAddress(a.address)))) {
        return callback(new RefusedAddress(`${hostname} resolves to an internal address`), '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}

/**
 * POSTs one delivery. Success is a 2xx answer within `timeoutMs` (the whole exchange up to the
 * answer's headers); a timeout, a connection error, a refused address, any other status — 3xx
 * included, since redirects are never followed (node:http does not follow them, and following one
 * could lead inside our network) — is a failure, described in `error`.
 *
 * Traced as a client span `POST`, whose URL leaves out the query and any credentials (a receiver's
 * URL may carry a token). No trace context is sent to the receiver.
 */
export function sendWebhook(
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  policy: SendPolicy,
  agents?: Agents,
  keepBytes = 0,
): Promise<DeliveryResult> {
  const url = URL.canParse(rawUrl) ? new URL(rawUrl) : undefined;
  const attributes = {
    'http.request.method': 'POST',
    ...(url ? { 'url.full': `${url.origin}${url.pathname}`, 'server.address': url.hostname } : {}),
  };
  return inSpan('POST', { kind: SpanKind.CLIENT, attributes }, async (span) => {
    const result = await exchange(rawUrl, body, headers, policy, agents, undefined, keepBytes);
    if (result.status !== null) span.setAttribute('http.response.status_code', result.status);
    if (result.error) span.setStatus({ code: SpanStatusCode.ERROR, message: result.error });
    return { status: result.status, error: result.error, durationMs: result.durationMs, response: result.excerpt ?? null };
  });
}

/**
 * POSTs to a URL a customer gave (an Odoo database's JSON-RPC endpoint), through the same guard as
 * deliveries (target.ts: HTTPS in production, no internal address, no redirect), and reads the
 * answer's body, up to `maxBytes` (a longer answer is a failure). Traced as `sendWebhook` is.
 */
export function postGuarded(
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  policy: SendPolicy,
  options: { agents?: Agents; maxBytes: number },
): Promise<SendResult & { body: string | null }> {
  const url = URL.canParse(rawUrl) ? new URL(rawUrl) : undefined;
  const attributes = {
    'http.request.method': 'POST',
    ...(url ? { 'url.full': `${url.origin}${url.pathname}`, 'server.address': url.hostname } : {}),
  };
  return inSpan('POST', { kind: SpanKind.CLIENT, attributes }, async (span) => {
    const result = await exchange(rawUrl, body, headers, policy, options.agents, options.maxBytes);
    if (result.status !== null) span.setAttribute('http.response.status_code', result.status);
    if (result.error) span.setStatus({ code: SpanStatusCode.ERROR, message: result.error });
    return { ...result, body: result.body ?? null };
  });
}

function exchange(
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  policy: SendPolicy,
  agents?: Agents,
  readUpTo?: number,
  keepBytes = 0,
): Promise<SendResult & { body?: string; excerpt?: ResponseExcerpt }> {
  const started = performance.now();
  const done = (status: number | null, error: string | null, text?: string): SendResult & { body?: string } => ({
    status,
    error,
    durationMs: Math.round(performance.now() - started),
    ...(text !== undefined ? { body: text } : {}),
  });
  const checked = checkTarget(rawUrl, policy);
  if ('refused' in checked) return Promise.resolve(done(null, `refused: ${checked.refused.reason}`));
  const { url } = checked;
  return new Promise((resolve) => {
    const signal = AbortSignal.timeout(policy.timeoutMs);
    const transport = url.protocol === 'https:' ? https : http;
    const req = transport.request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': Buffer.byteLength(body).toString() },
        lookup: guardedLookup(policy.allowPrivate),
        signal,
        agent: agents ? (url.protocol === 'https:' ? agents.https : agents.http) : false,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        res.on('error', () => {});
        if (readUpTo !== undefined && status >= 200 && status < 300) {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > readUpTo) {
              res.destroy();
              resolve(done(status, `the answer is longer than ${readUpTo} bytes`));
            } else chunks.push(chunk);
          });
          res.on('end', () => resolve(done(status, null, Buffer.concat(chunks).toString('utf8'))));
          res.on('close', () =>
            resolve(done(status, signal.aborted ? `timeout: no answer within ${policy.timeoutMs} ms` : 'the answer was cut short')),
          );
          return;
        }
        // The outcome is the status, timed when the headers came; the duration does not wait for the body.
        const outcome =
          status >= 200 && status < 300
            ? done(status, null)
            : status >= 300 && status < 400
              ? done(status, `redirect (${status}) not followed`)
              : done(status, `HTTP ${status}`);
        if (keepBytes <= 0) {
          res.resume(); // the answer's body is read and dropped, which frees the socket for reuse
          resolve(outcome);
          return;
        }
        // The first `keepBytes` of the body are kept; a longer answer is cut there and its
        // connection dropped (not read to its end: a receiver could stream without end). An answer
        // cut short by the receiver or the timeout keeps what came.
        const chunks: Buffer[] = [];
        let size = 0;
        let settled = false;
        const finish = (truncated: boolean) => {
          if (settled) return;
          settled = true;
          const kept = Buffer.concat(chunks).subarray(0, keepBytes);
          resolve({ ...outcome, excerpt: { text: decodeCut(kept), truncated } });
        };
        res.on('data', (chunk: Buffer) => {
          if (settled) return;
          chunks.push(chunk);
          size += chunk.length;
          if (size > keepBytes) {
            finish(true);
            res.destroy();
          }
        });
        res.on('end', () => finish(false));
        res.on('close', () => finish(!res.complete));
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (signal.aborted) resolve(done(null, `timeout: no answer within ${policy.timeoutMs} ms`));
      else if (err instanceof RefusedAddress || err.code === 'EREFUSEDADDRESS') resolve(done(null, `refused: ${err.message}`));
      else resolve(done(null, err.code ? `${err.code}: ${err.message}` : err.message));
    });
    req.end(body);
  });
}

/** UTF-8 text of bytes cut at an arbitrary point: a character cut in two at the end is left out. */
function decodeCut(bytes: Buffer): string {
  // A streaming decode holds back an incomplete last character; NUL cannot be stored in a TEXT column.
  return new TextDecoder('utf-8').decode(bytes, { stream: true }).replaceAll('\u0000', '\ufffd');
}
