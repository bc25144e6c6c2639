import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Log } from '../context.js';

/**
 * The channel on which PostgreSQL announces every change to what an API key's caller is made of
 * (the key's row, its establishment's, its organisation's plan and cancellation: triggers of the
 * migration `api_key_caller_changes`), whoever commits it. The API-key cache (http/auth.ts) listens
 * to it, so that a revocation reaches every replica as soon as it commits instead of when a cached
 * entry expires.
 *
 * What makes a listener trustworthy is not that its connection is open (a connection through a
 * pooler in transaction mode accepts LISTEN and then hears nothing; a half-open socket looks alive)
 * but that it hears itself: every `pingMs` it sends a notification on the channel marked with its
 * own instance id and the local time it was sent. PostgreSQL delivers a channel's notifications in
 * commit order, so when that ping comes back every change committed before it was sent has been
 * heard. `confirmedAt()` is the sending time of the newest ping that came back: the cache trusts an
 * entry only while that time is recent (auth.ts), and falls back to its short expiry otherwise.
 *
 * On (re)connection, and whenever the connection fails, `onChange` is called: what was announced
 * while nobody listened is unknown, so everything cached is dropped.
 */
export const CALLER_CHANGES_CHANNEL = 'merma_callers';

/** The listener's connection's name in pg_stat_activity. */
export const CALLER_CHANGES_APPLICATION = 'merma api key changes';

export type CallerChanges = {
  /** Registers the function called on every announced change (and on every (re)connection). */
  subscribe(onChange: () => void): void;
  /** The local time (ms, `now`'s clock) at which the newest ping that came back was sent; 0 before any. */
  confirmedAt(): number;
  /** Sends a ping now and resolves with its sending time once it comes back (the tests wait on it). */
  confirm(): Promise<number>;
  close(): Promise<void>;
};

const RECONNECT_MS = 1_000;
/** Pings not heard back are forgotten beyond this many (a silent channel must not grow memory). */
const MAX_PENDING = 64;

export function listenForCallerChanges(options: {
  connection: pg.ClientConfig;
  log?: Pick<Log, 'info' | 'warn'>;
  /** How often the channel checks it hears itself; well under the cache's short expiry. */
  pingMs?: number;
  now?: () => number;
}): CallerChanges {
  const { connection, log, pingMs = 500, now = Date.now } = options;
  const instance = randomUUID();
  const subscribers: (() => void)[] = [];
  /** Pings sent and not yet heard back: payload → sending time. */
  const pending = new Map<string, number>();
  const waiting = new Map<string, (sentAt: number) => void>();
  let client: pg.Client | undefined;
  let confirmed = 0;
  let sequence = 0;
  let closed = false;
  let wasUp = false;
  let retry: NodeJS.Timeout | undefined;

  const changed = () => {
    for (const onChange of subscribers) onChange();
  };

  function heard(payload: string) {
    if (!payload.startsWith('ping:')) {
      changed();
      return;
    }
    const sentAt = pending.get(payload);
    if (sentAt === undefined) return; // another replica's ping, or one forgotten
    confirmed = Math.max(confirmed, sentAt);
    // Pings come back in the order they were sent: older ones still pending never will.
    for (const [p, at] of pending) {
      if (at > sentAt) continue;
      pending.delete(p);
      waiting.get(p)?.(at);
      waiting.delete(p);
    }
  }

  function ping(): string | undefined {
    if (!client) return undefined;
    const payload = `ping:${instance}:${++sequence}`;
    pending.set(payload, now());
    if (pending.size > MAX_PENDING) {
      const oldest = pending.keys().next().value as string;
      pending.delete(oldest);
      waiting.delete(oldest);
    }
    client.query('SELECT pg_notify($1, $2)', [CALLER_CHANGES_CHANNEL, payload]).catch(() => {});
    return payload;
  }

  const ended = new WeakSet<pg.Client>();
  function down(c: pg.Client, err: unknown) {
    if (ended.has(c)) return; // 'error' and 'end' both come
    ended.add(c);
    if (client === c) client = undefined;
    c.removeAllListeners('notification');
    c.end().catch(() => {});
    changed();
    if (closed) return;
    if (wasUp)
      log?.warn(
        { err },
        'Lost the connection that hears API key changes: verified keys are cached for API_KEY_CACHE_TTL_MS until it is back',
      );
    wasUp = false;
    retry = setTimeout(connect, RECONNECT_MS);
    retry.unref();
  }

  async function connect() {
    if (closed) return;
    const c = new pg.Client({ ...connection, application_name: CALLER_CHANGES_APPLICATION });
    c.on('error', (err) => down(c, err));
    c.on('end', () => down(c, new Error('connection ended')));
    c.on('notification', (message) => {
      if (message.channel === CALLER_CHANGES_CHANNEL) heard(message.payload ?? '');
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${CALLER_CHANGES_CHANNEL}`);
    } catch (err) {
      down(c, err);
      return;
    }
    if (closed) {
      ended.add(c);
      await c.end().catch(() => {});
      return;
    }
    client = c;
    wasUp = true;
    changed(); // whatever was announced before this connection listened is unknown
    log?.info({}, 'Listening for API key changes: a revoked key stops working on this replica when the change commits');
    ping();
  }

  const timer = setInterval(ping, pingMs);
  timer.unref();
  void connect();

  return {
    subscribe(onChange) {
      subscribers.push(onChange);
    },
    confirmedAt: () => confirmed,
    confirm() {
      return new Promise((resolve, reject) => {
        const payload = ping();
        if (!payload) reject(new Error('Not listening for API key changes'));
        else waiting.set(payload, resolve);
      });
    },
    async close() {
      closed = true;
      clearInterval(timer);
      clearTimeout(retry);
      const c = client;
      client = undefined;
      if (c) ended.add(c);
      await c?.end().catch(() => {});
    },
  };
}
