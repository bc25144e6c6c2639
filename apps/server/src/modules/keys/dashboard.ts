import { ApiKeySummary, CreateApiKeyInput, CreatedApiKey, KeyIdInput } from '@merma/schema/dashboard';
import { z } from 'zod';
import { actorOf, BUILDERS, dashboardRouter, establishmentProcedure } from '../../trpc/dashboard-base.js';
import { recordAudit } from '../audit/service.js';
import { createApiKey, listApiKeys, revokeApiKey } from './service.js';

/** The API keys page: owners, admins and developers; viewers do not see keys at all. */
export const keysDashboardRouter = dashboardRouter({
  list: establishmentProcedure
    .meta({ roles: BUILDERS })
    .output(z.array(ApiKeySummary))
    .query(({ ctx }) => listApiKeys(ctx.db, ctx.establishment.id)),

  create: establishmentProcedure
    .meta({ roles: BUILDERS })
    .input(CreateApiKeyInput)
    .output(CreatedApiKey)
    .mutation(({ ctx, input }) =>
      ctx.db.$transaction(async (tx) => {
        const now = ctx.clock();
        const created = await createApiKey(tx, {
          establishmentId: ctx.establishment.id,
          name: input.name,
          mode: input.mode,
          permissions: input.permissions,
          createdBy: ctx.session.userId,
          now,
        });
        await recordAudit(tx, {
          organizationId: ctx.session.organizationId,
          actor: actorOf(ctx),
          action: 'api_key.created',
          target: created.redacted,
          establishmentId: ctx.establishment.id,
          details: { key_id: created.id, name: created.name, mode: created.mode, permissions: created.permissions },
          now,
        });
        return created;
      }),
    ),

  revoke: establishmentProcedure
    .meta({ roles: BUILDERS })
    .input(KeyIdInput)
    .output(ApiKeySummary)
    .mutation(({ ctx, input }) =>
      ctx.db.$transaction(async (tx) => {
        const now = ctx.clock();
        const revoked = await revokeApiKey(tx, { establishmentId: ctx.establishment.id, id: input.id, now });
        await recordAudit(tx, {
          organizationId: ctx.session.organizationId,
          actor: actorOf(ctx),
          action: 'api_key.revoked',
          target: revoked.redacted,
          establishmentId: ctx.establishment.id,
          details: { key_id: revoked.id, name: revoked.name },
          now,
        });
        return revoked;
      }),
    ),
});
