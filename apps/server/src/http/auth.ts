/*
 * Resolves `Authorization: Bearer <key>` to the key's establishment, organisation, plan, mode and
 * permissions (modules/tenancy). Keys are looked up by their SHA-256 (the only form stored). A verified key is cached
 * in this process for `ttlMs` (2 s by default): a revoked key stops working on every replica within
 * that time. Unknown keys are not cached.
 */
import { API_PLANS, LIVE_KEY_PREFIX, TEST_KEY_PREFIX } from '@merma/schema';
import type { FastifyRequest } from 'fastify';
import { hashApiKey, isWellFormedKey } from '../auth/keys.js';
import type { AuthContext, Log } from '../context.js';
import type { Db } from '../db/client.js';
import { AppError } from '../errors.js';
import { findKeyCaller, type KeyCaller } from '../modules/tenancy/service.js';

/** Turns a request's API key into its caller (401/403 otherwise). */
export type Authenticator = { authenticate(request: FastifyRequest): Promise<AuthContext> };

type CacheEntry = KeyCaller & { expires: number };
const MAX_CACHE_ENTRIES = 10_000;

/** A credential's last use (an API key's, a station device's) is written at most this often by a process. */
const LAST_USED_EVERY_MS = 60_000;

/**
 * Whether a credential's use is due to be written (the dashboard's "last used"): true at most once
 * a minute per id in this process. The statements that write it also skip a row another replica
 * wrote less than a minute ago.
 */
export function lastUseThrottle(): (id: string) => boolean {
  const lastWritten = new Map<string, number>();
  return (id) => {
    const now = Date.now();
    if (now - (lastWritten.get(id) ?? 0) < LAST_USED_EVERY_MS) return false;
    if (lastWritten.size >= MAX_CACHE_ENTRIES) lastWritten.clear();
    lastWritten.set(id, now);
    return true;
  };
}

export function createAuthenticator(db: Db, ttlMs: number, log?: Pick<Log, 'warn'>): Authenticator {
  const cache = new Map<string, CacheEntry>();
  const due = lastUseThrottle();

  /**
   * Records that a key was used (the dashboard's "last used"), off the request's path: at most once
   * a minute per key by this process, and the statement itself skips a row written less than a
   * minute ago by another replica.
   */
  function touch(keyId: string) {
    if (!due(keyId)) return;
    db.$executeRaw`
      UPDATE api_keys SET last_used_at = now()
      WHERE id = ${keyId}::uuid AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`.catch((err: unknown) =>
      log?.warn({ err, key_id: keyId }, 'the key could not be marked as used'),
    );
  }

  async function lookup(hash: string): Promise<CacheEntry | undefined> {
    const now = Date.now();
    const hit = cache.get(hash);
    if (hit && hit.expires > now) return hit;
    const found = await findKeyCaller(db, hash);
    if (!found) {
      cache.delete(hash);
      return undefined;
    }
    const entry: CacheEntry = { ...found, expires: now + ttlMs };
    if (ttlMs > 0) {
      if (cache.size >= MAX_CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
      cache.set(hash, entry);
    }
    return entry;
  }

  return {
    async authenticate(request) {
      const header = request.headers.authorization;
      if (!header) {
        throw new AppError('unauthorized', 'Missing API key: send the header Authorization: Bearer <API_KEY>');
      }
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      const key = match?.[1];
      if (!key || !isWellFormedKey(key)) {
        throw new AppError('unauthorized', `Invalid API key: expected Authorization: Bearer ${LIVE_KEY_PREFIX}… or ${TEST_KEY_PREFIX}…`);
      }
      const entry = await lookup(hashApiKey(key));
      if (!entry) throw new AppError('unauthorized', 'Invalid API key');
      if (entry.revoked) throw new AppError('unauthorized', 'This API key has been revoked');
      if (entry.canceled) throw new AppError('plan_required', "The organisation's subscription is canceled");
      if (!(API_PLANS as readonly string[]).includes(entry.auth.plan)) {
        throw new AppError('plan_required', 'The API is available on the Enterprise and Enterprise Multi plans only');
      }
      touch(entry.auth.keyId);
      return entry.auth;
    },
  };
}
