import { initTRPC, TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runProcedure } from '../src/trpc/run.js';

/**
 * The REST routes run their procedure with trpc/run.ts instead of tRPC's caller: the same steps in
 * the same order, so every answer and every error must be the caller's. A procedure here uses each
 * thing a step may do — a middleware that adds to the context, one that sets the input, two input
 * parsers whose fields are merged, an output parser, one that throws before and one after
 * `next()` — and each is asked of both.
 */
type Ctx = { user: string; calls: string[] };
const t = initTRPC.context<Ctx>().meta<{ permission?: string }>().create();
const base = t.procedure
  .use(({ ctx, meta, next }) => {
    ctx.calls.push(`permission ${meta?.permission ?? '-'}`);
    if (ctx.user === 'nobody') throw new TRPCError({ code: 'FORBIDDEN', message: 'no' });
    return next({ ctx: { role: ctx.user === 'ana' ? 'owner' : 'viewer' } });
  })
  .use(async ({ ctx, next }) => {
    const result = await next();
    ctx.calls.push(`after ${result.ok ? 'ok' : 'failed'}`);
    return result;
  });

const router = t.router({
  greet: base
    .meta({ permission: 'records:read' })
    .input(z.object({ name: z.string().min(1) }))
    .input(z.object({ times: z.coerce.number().int().positive().default(1) }))
    .output(z.object({ text: z.string(), role: z.string() }))
    .query(({ ctx, input }) => ({ text: `hola ${input.name}`.repeat(input.times), role: ctx.role })),
  fail: base.input(z.object({ why: z.string() })).mutation(({ input }) => {
    if (input.why === 'plain') throw new Error('plain failure');
    throw new TRPCError({ code: 'CONFLICT', message: `conflict: ${input.why}` });
  }),
  badOutput: base.output(z.object({ n: z.number() })).query(() => ({ n: 'not a number' }) as unknown as { n: number }),
});
const caller = t.createCallerFactory(router);

async function both(path: 'greet' | 'fail' | 'badOutput', user: string, input: unknown) {
  const outcome = async (run: (ctx: Ctx) => Promise<unknown>) => {
    const ctx: Ctx = { user, calls: [] };
    try {
      return { ok: true, data: await run(ctx), calls: ctx.calls };
    } catch (err) {
      const e = err as TRPCError;
      return { ok: false, name: e.name, code: e.code, message: e.message, cause: e.cause?.constructor.name, calls: ctx.calls };
    }
  };
  const viaCaller = await outcome((ctx) => (caller(ctx)[path] as (i: unknown) => Promise<unknown>)(input));
  const viaRun = await outcome((ctx) => runProcedure(router._def.procedures[path], path, ctx, input));
  return { viaCaller, viaRun };
}

describe('a procedure run for a REST route', () => {
  it.each([
    ['an answer, the context and both inputs merged', 'greet', 'ana', { name: 'Ana', times: '2' }],
    ['a default from the second input', 'greet', 'luis', { name: 'Luis' }],
    ['an input refused (BAD_REQUEST, the parser’s error as cause)', 'greet', 'ana', { name: '' }],
    ['no input at all', 'greet', 'ana', undefined],
    ['a refusal before next()', 'greet', 'nobody', { name: 'Ana' }],
    ['a TRPCError thrown by the resolver', 'fail', 'ana', { why: 'taken' }],
    ['any other error thrown by the resolver (INTERNAL_SERVER_ERROR, the error as cause)', 'fail', 'ana', { why: 'plain' }],
    ['an answer its output schema refuses', 'badOutput', 'ana', {}],
  ] as const)('gives what tRPC’s caller gives: %s', async (_, path, user, input) => {
    const { viaCaller, viaRun } = await both(path, user, input);
    expect(viaRun).toEqual(viaCaller);
  });

  it('answers and fails as expected (so that the comparison above compares something)', async () => {
    expect((await both('greet', 'ana', { name: 'Ana', times: 2 })).viaRun).toEqual({
      ok: true,
      data: { text: 'hola Anahola Ana', role: 'owner' },
      calls: ['permission records:read', 'after ok'],
    });
    expect((await both('greet', 'ana', { name: '' })).viaRun).toMatchObject({
      ok: false,
      code: 'BAD_REQUEST',
      calls: ['permission records:read', 'after failed'],
    });
    expect((await both('greet', 'nobody', { name: 'Ana' })).viaRun).toMatchObject({
      ok: false,
      code: 'FORBIDDEN',
      message: 'no',
      calls: ['permission records:read'],
    });
    expect((await both('fail', 'ana', { why: 'plain' })).viaRun).toMatchObject({
      ok: false,
      code: 'INTERNAL_SERVER_ERROR',
      message: 'plain failure',
      cause: 'Error',
    });
  });
});
