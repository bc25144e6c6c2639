import type { FastifyInstance } from 'fastify';
import { assertStorableJson } from '../json-body.js';

/**
 * The hooks a surface (one kind of caller: http/surfaces/) adds to its own encapsulated plugin,
 * so they run for its routes only — Fastify's encapsulation, as in its own demo application — and
 * http/app.ts keeps only what every route shares. Each surface says which it takes.
 */

/** Its answers are never cached: they are one caller's data (`Cache-Control: no-store`). */
export function noStore(app: FastifyInstance): void {
  // Fastify's callback form: no promise for a hook that never waits (it runs on every request).
  app.addHook('onRequest', (_request, reply, done) => {
    reply.header('cache-control', 'no-store');
    done();
  });
}

/** A JSON body must be text the database can store as given (json-body.ts, `assertStorableJson`). */
export function storableBodies(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    if (request.body !== undefined) assertStorableJson(request.body);
  });
}

/**
 * After this process answered a successful write (any method but GET and HEAD, a status below 400:
 * a tRPC batch whose calls partly succeeded answers 207), `afterWrite` runs: serve.ts points it at
 * the local worker's dispatcher, so that the write's webhooks leave at once instead of at its next
 * poll. Every surface whose writes can emit events takes it.
 */
export function wakeAfterWrites(app: FastifyInstance, afterWrite: (() => void) | undefined): void {
  if (!afterWrite) return;
  app.addHook('onResponse', (request, reply, done) => {
    if (request.method !== 'GET' && request.method !== 'HEAD' && reply.statusCode < 400) afterWrite();
    done();
  });
}
