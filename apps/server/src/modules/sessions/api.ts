import { CreateSessionInput, ListSessionsQuery, ListSessionsResponse, SessionIdParams, SessionResponse } from '@merma/schema';
import { apiProcedure, ok, router } from '../../trpc/trpc.js';
import { completeSession, createSession, getSession, listSessions } from './service.js';

export const sessionsRouter = router({
  list: apiProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/sessions',
        tags: ['sessions'],
        summary: 'List registration sessions, newest first',
        operationId: 'listSessions',
      },
      permission: 'sessions:read',
    })
    .input(ListSessionsQuery)
    .output(ListSessionsResponse)
    .query(async ({ ctx, input }) => {
      const { data, pagination } = await listSessions(ctx.replica, ctx.auth, input);
      return { ...ok(data), meta: { pagination } };
    }),

  create: apiProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/sessions',
        tags: ['sessions'],
        summary: 'Open a registration session',
        description: 'Records created with this `session_id` while it is open belong to it.',
        operationId: 'createSession',
      },
      permission: 'sessions:write',
      successStatus: 201,
    })
    .input(CreateSessionInput)
    .output(SessionResponse)
    .mutation(async ({ ctx, input }) => ok(await createSession(ctx, ctx.auth, input))),

  get: apiProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/sessions/{id}',
        tags: ['sessions'],
        summary: 'Get a registration session',
        operationId: 'getSession',
      },
      permission: 'sessions:read',
    })
    .input(SessionIdParams)
    .output(SessionResponse)
    .query(async ({ ctx, input }) => ok(await getSession(ctx.sql, ctx.auth, input.id))),

  complete: apiProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/sessions/{id}/complete',
        tags: ['sessions'],
        summary: 'Complete a registration session',
        description: 'Fixes its record count and kg and emits `session.completed`. A second completion is a 409.',
        operationId: 'completeSession',
      },
      permission: 'sessions:write',
    })
    .input(SessionIdParams)
    .output(SessionResponse)
    .mutation(async ({ ctx, input }) => ok(await completeSession(ctx, ctx.auth, input.id))),
});
