import { type AnyProcedure, getTRPCErrorFromUnknown, type TRPCError } from '@trpc/server';

/**
 * Runs a procedure for a REST route (http/binding.ts) exactly as tRPC's own caller does — each of
 * its middlewares in order (permission, input parse, output check, the resolver last), `next()`
 * going one step on with the context it merges and the input it sets, a thrown error turned into
 * a failed result at that step and thrown at the end — with each step's options made as one object
 * literal. tRPC's build makes them with a transpiled object-spread helper, twice per step: 4–5 % of
 * a POST /records' CPU in `pnpm bench`'s profile, for nothing a route needs. The procedures stay
 * tRPC's (the dashboard's /trpc calls them through tRPC itself); test/trpc-run.test.ts holds the
 * two ways to the same answers and errors.
 */
type Result =
  | { marker: 'middlewareMarker'; ok: true; data: unknown; ctx?: unknown }
  | { marker: 'middlewareMarker'; ok: false; error: TRPCError };
type NextOptions = { ctx?: object; input?: unknown; getRawInput?: () => Promise<unknown> };
type Step = {
  ctx: object;
  input: unknown;
  getRawInput: () => Promise<unknown>;
  path: string;
  type: string;
  signal: AbortSignal | undefined;
  batchIndex: number;
};
type Middleware = (opts: Step & { meta: unknown; next: (next?: NextOptions) => Promise<Result> }) => Promise<Result>;
type Def = { middlewares: Middleware[]; meta: unknown };

async function step(def: Def, index: number, opts: Step): Promise<Result> {
  try {
    const middleware = def.middlewares[index] as Middleware;
    return await middleware({
      ctx: opts.ctx,
      input: opts.input,
      getRawInput: opts.getRawInput,
      path: opts.path,
      type: opts.type,
      signal: opts.signal,
      batchIndex: opts.batchIndex,
      meta: def.meta,
      next: (next) =>
        step(def, index + 1, {
          ctx: next?.ctx ? { ...opts.ctx, ...next.ctx } : opts.ctx,
          input: next && 'input' in next ? next.input : opts.input,
          getRawInput: next?.getRawInput ?? opts.getRawInput,
          path: opts.path,
          type: opts.type,
          signal: opts.signal,
          batchIndex: opts.batchIndex,
        }),
    });
  } catch (cause) {
    return { marker: 'middlewareMarker', ok: false, error: getTRPCErrorFromUnknown(cause) };
  }
}

/** The procedure's answer to `input` in `ctx`, or the error it threw (a TRPCError, as tRPC's caller throws). */
export async function runProcedure(procedure: AnyProcedure, path: string, ctx: object, input: unknown): Promise<unknown> {
  const def = procedure._def as unknown as Def & { type: string };
  const result = await step(def, 0, {
    ctx,
    input: undefined,
    getRawInput: async () => input,
    path,
    type: def.type,
    signal: undefined,
    batchIndex: 0,
  });
  if (!result.ok) throw result.error;
  return result.data;
}
