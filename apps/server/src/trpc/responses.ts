import { isDeepStrictEqual } from 'node:util';
import { type AnyRouter, TRPCError } from '@trpc/server';
import type { z } from 'zod';

/**
 * How the API's answers are checked against the schemas the OpenAPI document publishes
 * (`API_RESPONSE_CHECK`):
 *
 * - `strict` (development and tests): each answer is parsed with its procedure's output schema and
 *   must come out of the parse unchanged — nothing stripped, defaulted or converted. An answer the
 *   schema would reject or change is a 500. The whole suite runs this way, so every answer a test
 *   produces is proved to be exactly its documented shape, byte for byte what `off` sends.
 * - `off` (production): the answer is sent as the procedure built it. tRPC's own output parse costs
 *   about a millisecond for a page of 50 records, on the API's hottest read, to check what `strict`
 *   has already proved, and it would silently strip what a procedure should never have put there.
 *
 * tRPC parses outputs in a middleware of each procedure (its `.output()`). `checkResponses`
 * replaces that middleware, once per procedure, by one that reads the mode from the request's
 * context; the schema stays on the procedure, where trpc-to-openapi documents it.
 */
export type ResponseCheck = 'strict' | 'off';

type Middleware = ((opts: {
  ctx: { responseCheck?: ResponseCheck };
  next: () => Promise<{ ok: boolean; data?: unknown }>;
}) => Promise<unknown>) & { _type?: string; responseCheck?: true };
type ProcedureDef = { middlewares: Middleware[]; output?: z.ZodType };

/** The same value as JSON sends it (undefined dropped, dates as text), for comparing two answers. */
const asSent = (value: unknown): unknown => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)));

function outputCheck(schema: z.ZodType): Middleware {
  const middleware: Middleware = async ({ ctx, next }) => {
    const result = await next();
    if (!result.ok || ctx.responseCheck === 'off') return result;
    const parsed = schema.safeParse(result.data);
    if (!parsed.success) throw new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'Output validation failed', cause: parsed.error });
    if (!isDeepStrictEqual(asSent(parsed.data), asSent(result.data))) {
      throw new TRPCError({
        code: 'INTERNAL_SERVER_ERROR',
        message: 'The answer is not exactly its documented shape: its schema strips or converts part of it',
      });
    }
    return result;
  };
  middleware._type = 'output';
  middleware.responseCheck = true;
  return middleware;
}

/** Puts `outputCheck` in place of tRPC's output parse in every procedure of `router` (once). */
export function checkResponses(router: AnyRouter): void {
  for (const procedure of Object.values(router._def.procedures as Record<string, { _def: ProcedureDef }>)) {
    const def = procedure._def;
    const schema = def.output;
    if (!schema) continue;
    def.middlewares = def.middlewares.map((m) => {
      return m._type === 'output' && !m.responseCheck ? outputCheck(schema) : m;
    });
  }
}
