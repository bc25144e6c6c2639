import { randomBytes } from 'node:crypto';
import { initTRPC } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSecretBox, encryptionKey } from '../src/secrets/cipher.js';
import { createCheckpointSigner } from '../src/secrets/signing.js';
import { checkResponses, type ResponseCheck } from '../src/trpc/responses.js';
import { createAppRouter } from '../src/trpc/router.js';

/**
 * API_RESPONSE_CHECK (trpc/responses.ts): `strict` refuses an answer its schema would reject or
 * change, `off` sends what the procedure built; and every API procedure is checked that way.
 */
const t = initTRPC.context<{ responseCheck: ResponseCheck }>().create();
const Answer = z.object({ id: z.string(), kg: z.number(), note: z.string().nullable() });
const answering = (value: unknown) =>
  t.router({
    get: t.procedure.output(Answer).query(() => value as z.infer<typeof Answer>),
  });
async function call(value: unknown, responseCheck: ResponseCheck) {
  const router = answering(value);
  checkResponses(router);
  return t.createCallerFactory(router)({ responseCheck }).get();
}

describe('API_RESPONSE_CHECK', () => {
  const exact = { id: 'r-1', kg: 1.5, note: null };

  it('strict: an answer exactly of its schema goes out as built', async () => {
    await expect(call(exact, 'strict')).resolves.toEqual(exact);
  });

  it.each([
    ['a field the schema does not have (which a parse would strip)', { ...exact, key_hash: 'secret' }, /not exactly its documented shape/],
    ['a field of the wrong type', { ...exact, kg: '1.5' }, /Output validation failed/],
    ['a missing field', { id: 'r-1', kg: 1.5 }, /Output validation failed/],
  ])('strict: refuses %s', async (_name, value, message) => {
    await expect(call(value, 'strict')).rejects.toThrow(message);
  });

  it('off: the answer is sent as the procedure built it, unparsed', async () => {
    const built = { ...exact, extra: 1 };
    await expect(call(built, 'off')).resolves.toBe(built);
  });

  it("every API procedure has a documented output, checked by the request's mode and not by tRPC's own parse", () => {
    const secrets = createSecretBox([encryptionKey('k1', randomBytes(32))], 'test');
    const api = createAppRouter({
      catalog: { get: async () => ({}) } as never,
      publicUrl: 'http://localhost',
      webhookTargets: { production: false, allowPrivate: false },
      secrets,
      signer: createCheckpointSigner(secrets),
      photos: undefined as never,
    });
    const procedures = Object.entries(
      api._def.procedures as unknown as Record<
        string,
        { _def: { output?: unknown; middlewares: { _type?: string; responseCheck?: true }[] } }
      >,
    );
    expect(procedures.length).toBeGreaterThan(20);
    for (const [path, procedure] of procedures) {
      expect(procedure._def.output, path).toBeDefined();
      const outputs = procedure._def.middlewares.filter((m) => m._type === 'output');
      expect(
        outputs.map((m) => m.responseCheck ?? false),
        path,
      ).toEqual([true]);
    }
  });
});
