/*
 * Resolves `Authorization: Bearer <key>` to the key's caller (modules/tenancy/callers.ts: its
 * establishment, organisation, plan, mode and permissions). Keys are looked up by their SHA-256
 * (the only form stored). Unknown keys are not cached.
 *
 * A verified key (refused or not) is cached in this process, and the promise is the same whatever
 * the deployment: a revoked key, a permission or a plan change takes effect on every replica within
 * `ttlMs` (API_KEY_CACHE_TTL_MS, 2 s by default) of its commit. How:
 * - without `changes` (the embedded database, whose one session cannot carry LISTEN apart): an
 *   entry is read again once it is `ttlMs` old;
 * - with `changes` (auth/caller-changes.ts, on PostgreSQL): every announced change empties the
 *   cache, and an entry also stays trusted beyond `ttlMs`, up to `LONG_TTL_MS`, while the channel
 *   has proven within the last `ttlMs` that it hears every change (its newest ping back was sent
 *   less than `ttlMs` ago). A change committed before that ping was sent has been heard; one
 *   committed after it is less than `ttlMs` old. When the channel goes quiet (connection lost, a
 *   pooler that swallows notifications, a stalled database), entries fall back to `ttlMs` by
 *   themselves. A busy key then costs one lookup per `LONG_TTL_MS` instead of one per `ttlMs`.
 */
import { LIVE_KEY_PREFIX, TEST_KEY_PREFIX } from '@merma/schema';
import type { FastifyRequest } from 'fastify';
import type { CallerChanges } from '../auth/caller-changes.js';
import { hashApiKey, isWellFormedKey } from '../auth/keys.js';
import type { AuthContext, Log } from '../context.js';
import type { Db } from '../db/client.js';
import { sqlOfTransaction } from '../db/sql.js';
import { AppError } from '../errors.js';
import { authOf, type Caller, credentialToucher, findKeyCaller } from '../modules/tenancy/callers.js';

/** Turns a request's API key into its caller (401/403 otherwise). */
export type Authenticator = { authenticate(request: FastifyRequest): Promise<AuthContext> };

type CacheEntry = { caller: Caller; auth: AuthContext; verifiedAt: number };
const MAX_CACHE_ENTRIES = 10_000;
/** The longest an entry is trusted, however well the channel hears: a bound on any missed path. */
export const LONG_TTL_MS = 10 * 60_000;

/**
 * The credential of `Authorization: Bearer <credential>` (any scheme's case, spaces around), or
 * undefined when the header is absent or of another form: every surface that takes a bearer
 * credential (the API's keys, the stations' device tokens) reads it here.
 */
export function bearerCredential(request: FastifyRequest): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  return match?.[1];
}

export function createAuthenticator(options: {
  db: Db;
  ttlMs: number;
  log?: Pick<Log, 'warn'>;
  /** The changes channel (PostgreSQL only); without it entries expire after `ttlMs`. */
  changes?: CallerChanges;
  now?: () => number;
}): Authenticator {
  const { db, ttlMs, changes, now = Date.now } = options;
  const cache = new Map<string, CacheEntry>();
  const sql = sqlOfTransaction(db);
  const touch = credentialToucher(sql, options.log);
  // Bumped on every announced change: a lookup that was in flight then does not cache what it read.
  let generation = 0;
  changes?.subscribe(() => {
    generation += 1;
    cache.clear();
  });

  const trusted = (entry: CacheEntry, at: number) => {
    const age = at - entry.verifiedAt;
    if (age < ttlMs) return true;
    return changes !== undefined && age < LONG_TTL_MS && at - changes.confirmedAt() < ttlMs;
  };

  async function lookup(hash: string): Promise<CacheEntry | undefined> {
    const at = now();
    const hit = cache.get(hash);
    if (hit && trusted(hit, at)) return hit;
    const before = generation;
    const caller = await findKeyCaller(sql, hash);
    if (!caller) {
      cache.delete(hash);
      return undefined;
    }
    const entry: CacheEntry = { caller, auth: authOf(caller), verifiedAt: at };
    if (ttlMs > 0 && generation === before) {
      cache.delete(hash); // re-inserted last: the oldest-first eviction below
      if (cache.size >= MAX_CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
      cache.set(hash, entry);
    }
    return entry;
  }

  return {
    async authenticate(request) {
      if (!request.headers.authorization) {
        throw new AppError('unauthorized', 'Missing API key: send the header Authorization: Bearer <API_KEY>');
      }
      const key = bearerCredential(request);
      if (!key || !isWellFormedKey(key)) {
        throw new AppError('unauthorized', `Invalid API key: expected Authorization: Bearer ${LIVE_KEY_PREFIX}… or ${TEST_KEY_PREFIX}…`);
      }
      const entry = await lookup(hashApiKey(key));
      if (!entry) throw new AppError('unauthorized', 'Invalid API key');
      if (entry.caller.refusal) throw entry.caller.refusal;
      touch(entry.caller.credential);
      return entry.auth;
    },
  };
}
