/*
 * Resolves `Authorization: Bearer <key>` to the key's caller (modules/tenancy/callers.ts: its
 * establishment, organisation, plan, mode and permissions). Keys are looked up by their SHA-256
 * (the only form stored). A verified key is cached in this process for `ttlMs` (2 s by default): a
 * revoked key stops working on every replica within that time. Unknown keys are not cached.
 */
import { LIVE_KEY_PREFIX, TEST_KEY_PREFIX } from '@merma/schema';
import type { FastifyRequest } from 'fastify';
import { hashApiKey, isWellFormedKey } from '../auth/keys.js';
import type { AuthContext, Log } from '../context.js';
import type { Db } from '../db/client.js';
import { sqlOfTransaction } from '../db/sql.js';
import { AppError } from '../errors.js';
import { authOf, type Caller, credentialToucher, findKeyCaller } from '../modules/tenancy/callers.js';

/** Turns a request's API key into its caller (401/403 otherwise). */
export type Authenticator = { authenticate(request: FastifyRequest): Promise<AuthContext> };

type CacheEntry = { caller: Caller; auth: AuthContext; expires: number };
const MAX_CACHE_ENTRIES = 10_000;

/**
 * The credential of `Authorization: Bearer <credential>` (any scheme's case, spaces around), or
 * undefined when the header is absent or of another form: every surface that takes a bearer
 * credential (the API's keys, the stations' device tokens) reads it here.
 */
export function bearerCredential(request: FastifyRequest): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  return match?.[1];
}

export function createAuthenticator(db: Db, ttlMs: number, log?: Pick<Log, 'warn'>): Authenticator {
  const cache = new Map<string, CacheEntry>();
  const sql = sqlOfTransaction(db);
  const touch = credentialToucher(sql, log);

  async function lookup(hash: string): Promise<CacheEntry | undefined> {
    const now = Date.now();
    const hit = cache.get(hash);
    if (hit && hit.expires > now) return hit;
    const caller = await findKeyCaller(sql, hash);
    if (!caller) {
      cache.delete(hash);
      return undefined;
    }
    const entry: CacheEntry = { caller, auth: authOf(caller), expires: now + ttlMs };
    if (ttlMs > 0) {
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
